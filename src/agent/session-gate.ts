/**
 * The session's context gate, kept in step with the configured model: asking for it with other limits
 * (a model switch, a changed window setting) builds a new one at once, so the meter and the next
 * request use the new window immediately — after 200k → 8k the meter says 8k, also after a Clear.
 * Pure (no vscode); the session host owns one per session.
 */
import { statusAt } from '../context/compaction/context-status';
import { contextPercent } from '../context/context-share';
import type { ModelLimits } from '../context/models';
import type { Thresholds } from '../context/settings';
import type { DefaultContextGate } from './context-gate';
import type { ContextUsage } from './events';
import { modelNumber } from '../common/model-numbers';

/** Limits that differ in any of these are another window. */
export function sameLimits(a: ModelLimits, b: ModelLimits): boolean {
  return (
    a.model === b.model &&
    a.provider === b.provider &&
    a.contextWindow === b.contextWindow &&
    a.maxOutput === b.maxOutput &&
    a.buffer === b.buffer
  );
}

export class SessionGate {
  private gate: DefaultContextGate | undefined;
  /** What the next request will carry besides the messages (handed to every gate built from now on). */
  private expected: Parameters<DefaultContextGate['expect']> | undefined;

  constructor(private readonly make: (limits: ModelLimits) => DefaultContextGate) {}

  /** The gate for these limits: the current one, or a new one when the limits changed. */
  for(limits: ModelLimits): DefaultContextGate {
    if (!this.gate || !sameLimits(this.gate.limits, limits)) {
      this.gate = this.make(limits);
      if (this.expected) this.gate.expect(...this.expected);
    }
    return this.gate;
  }

  /** The system prompt and tools the next request will carry: the meter counts them before it is sent. */
  expect(...expected: Parameters<DefaultContextGate['expect']>): void {
    this.expected = expected;
    this.gate?.expect(...expected);
  }

  /** Forgets the gate (session switch: its compaction hook belongs to the old session). */
  reset(): void {
    this.gate = undefined;
  }
}

/**
 * What to tell the user when the context, measured against the current window, is already at or over
 * the compact threshold (after a model switch or on resume); undefined when it fits. The gate compacts
 * before the next request anyway: this is the chance to do it now, on purpose.
 */
export function sizeWarning(usage: ContextUsage, thresholds: Thresholds): string | undefined {
  const status = statusAt(usage.ratio, thresholds);
  if (status !== 'compact' && status !== 'block') return undefined;
  const pct = contextPercent(usage.used, usage.effectiveWindow);
  const over = usage.ratio >= 1;
  return (
    `The context (${modelNumber(usage.used)} tokens) is ${pct} % of the ${modelNumber(usage.effectiveWindow)} tokens this model can take` +
    (over ? ': it must be compacted before the next request.' : '. Compact it now?')
  );
}
