/**
 * The meter never goes down during a turn, except by a compaction or a clear. While a turn runs, the
 * figure moves with every message; a new measurement can come out lower than the one shown — a safe
 * estimate (an upper bound) replaced by the tokenizer's exact count, or by the provider's count of
 * the request — and a meter that dips while the context only grew reads as lost context. So during
 * a turn a lower figure is held back (the one shown stays: it was an upper bound of the same
 * context) until the figure rises past it, a compaction changes the context, or the turn ends, when
 * the latest figure is shown. What is held is the total only: the figure published meanwhile is the
 * latest measurement's breakdown, scaled up to the total on screen, with a band that covers the gap
 * (`heldUsage`), so Details never describes a context that no longer exists (a tool result read
 * after the figure was taken listed as 0 tokens). Pure state; never throws.
 */
import { Emitter, type Event } from '../common/emitter';
import type { IDisposable } from '../common/disposable';
import type { AgentEvent, ContextUsage } from './events';
import { contextShare } from '../context/context-share';

export class MeterFloor {
  private running = false;
  private floor = 0;
  private held: Extract<AgentEvent, { type: 'context_usage' }> | undefined;
  /** The figure shown last, for a measurement asked for during a turn that came out lower. */
  private last: ContextUsage | undefined;

  /** A figure measured outside the events (the meter between turns): during a turn a lower one gives way to the one shown. */
  shown(usage: ContextUsage): ContextUsage {
    if (this.running && this.last && usage.used < this.floor) return this.last;
    this.floor = usage.used;
    this.last = usage;
    return usage;
  }

  /** What to publish for `e`, in order: `e` itself, nothing (a lower figure held back), or at a turn's end also the figure held. */
  filter(e: AgentEvent): AgentEvent[] {
    switch (e.type) {
      case 'turn_start':
        this.running = true;
        return [e];
      case 'turn_end': {
        this.running = false;
        const held = this.held;
        this.held = undefined;
        if (!held) return [e];
        this.floor = held.usage.used;
        this.last = held.usage;
        return [e, held];
      }
      case 'compaction':
      case 'compaction_end':
        // The context changed: the figure may fall to what is left.
        this.floor = 0;
        return [e];
      case 'context_usage':
        if (this.running && this.last && e.usage.used < this.floor) {
          this.held = e;
          const shown = heldUsage(e.usage, this.floor);
          this.last = shown;
          return [{ type: 'context_usage', usage: shown }];
        }
        this.held = undefined;
        this.floor = e.usage.used;
        this.last = e.usage;
        return [e];
      default:
        return [e];
    }
  }
}

/** `source` as the meter may show it (`MeterFloor`), and the floor for figures measured outside the events. */
export function holdMeterInTurns(source: Event<AgentEvent>): IDisposable & { event: Event<AgentEvent>; floor: MeterFloor } {
  const out = new Emitter<AgentEvent>();
  const floor = new MeterFloor();
  const sub = source((e) => {
    for (const shown of floor.filter(e)) out.fire(shown);
  });
  return {
    event: out.event,
    floor,
    dispose: () => {
      sub.dispose();
      out.dispose();
    },
  };
}

/**
 * `usage` shown at the total `floor` (above it): its breakdown scaled up to that total, the gap added
 * to the band within which the truth lies, the rest of the figure moved by the same gap.
 */
export function heldUsage(usage: ContextUsage, floor: number): ContextUsage {
  const gap = floor - usage.used;
  if (!(gap > 0)) return usage;
  const ratio = usage.effectiveWindow > 0 ? contextShare(floor, usage.effectiveWindow) : usage.ratio;
  const b = usage.budget;
  if (!b) return { ...usage, used: floor, ratio };
  const scale = usage.used > 0 ? floor / usage.used : 1;
  const components = b.components.map((c) => ({ ...c, tokens: Math.round(c.tokens * scale) }));
  // Rounding left on the largest component, so the breakdown adds up to the total shown.
  const largest = components.reduce((m, c, i) => (c.tokens > components[m].tokens ? i : m), 0);
  if (components.length) components[largest].tokens += floor - components.reduce((s, c) => s + c.tokens, 0);
  for (const c of components) c.fraction = contextShare(c.tokens, b.effectiveWindow);
  return {
    ...usage,
    used: floor,
    ratio,
    budget: {
      ...b,
      used: floor,
      remaining: b.remaining - gap,
      percent: b.effectiveWindow > 0 ? contextShare(floor, b.effectiveWindow) : b.percent,
      components,
      bandTokens: b.bandTokens + gap,
      untilCompact: Math.max(0, b.untilCompact - gap),
    },
  };
}
