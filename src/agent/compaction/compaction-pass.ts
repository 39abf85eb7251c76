/**
 * One pass of the compaction chain, each step only while the view is still over its target:
 *   a) clear old tool results (never-offloaded ones are stored first, so `read_result` reaches them);
 *   b) an LLM summary (`summary-step.ts`; skipped without a summarizer, or when it would not fit or fails);
 *   c) the deterministic fallback: drop the oldest turns behind a history message that keeps the earlier
 *      summary, the pins and every user instruction — always possible, even with a full window.
 * The pass's state (the view, what it did, its notes) is this object's own; it never modifies its input.
 * Exceptions from the steps propagate to the chain, which counts the pass as failed.
 */
import {
  applyClearPlan,
  dropWithHistory,
  historyMessage,
  parseHistoryMessage,
  planClearToolResults,
  KEEP_RECENT_RESULTS,
} from '../../context/compaction';
import { yieldToEventLoop } from '../../common/yield';
import type { Message, ToolResultMessage, Usage } from '../../providers/types';
import type { CompactInput } from '../compact-hook';
import { DEFAULT_INSTRUCTIONS_SHARE, type ChainResult, type ChainServices, type PassScope } from './chain-types';
import { compactionReceipt } from './receipt';
import { errorText } from './result-archive';
import { SummaryStep } from './summary-step';

export class CompactionPass {
  private view: Message[];
  private readonly strategies: string[] = [];
  private readonly clearedRefIds: string[] = [];
  private cost: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  private summary: string | undefined;
  /** Why the summary this pass asked for is missing (its first note), for the history message. */
  private summaryFailure: string | undefined;

  private constructor(
    private readonly chain: ChainServices,
    private readonly scope: PassScope,
    private readonly notes: string[],
  ) {
    this.view = [...scope.input.messages];
  }

  /** A pass over `input`, with the pins and the carried ledger block read once. Never rejects. */
  static async open(chain: ChainServices, input: CompactInput, signal: AbortSignal): Promise<CompactionPass> {
    const target = Math.max(0, input.targetTokens);
    const pins = await readPins(chain);
    const carried = await carriedBlock(chain, target);
    const notes = [...(pins.note ? [pins.note] : []), ...carried.notes];
    const scope: PassScope = {
      input,
      signal,
      target,
      tokensOf: nonNegative(input.tokensOf),
      requestTokensOf: nonNegative(input.estimateOf ?? input.tokensOf),
      pins: pins.value,
      ledger: carried.block,
    };
    return new CompactionPass(chain, scope, notes);
  }

  /**
   * Runs steps a → b → c; undefined when no step changed the view. The host gets the event loop back
   * between the steps (and inside the summary step), so a huge history never blocks it in one stretch.
   */
  async run(started: number): Promise<ChainResult | undefined> {
    const { signal } = this.scope;
    const beforeTokens = this.total(this.scope.input.messages);
    await yieldToEventLoop();
    await this.clearOldResults();
    await yieldToEventLoop();
    if (this.overTarget() && !signal.aborted) await this.summarize();
    await yieldToEventLoop();
    if (this.overTarget() && !signal.aborted) await this.dropOldestTurns();
    if (this.strategies.length === 0) return undefined;
    await yieldToEventLoop();
    const view = withCurrentLedger(this.view, this.scope.ledger);
    // What the next request carries of what left: checked on the final view, ledger included.
    const receipt = await compactionReceipt(this.scope.input.messages, view);
    return { ...this.result(view, beforeTokens, started), receipt };
  }

  /** a) Clears old tool results, storing those never stored so they stay retrievable. */
  private async clearOldResults(): Promise<void> {
    const { options, archive } = this.chain;
    const plan = planClearToolResults(this.view, {
      keepRecent: options.keepRecentResults ?? KEEP_RECENT_RESULTS,
      keepTokens: Math.floor(this.scope.target * (options.keepResultsShare ?? 0.25)),
      tokensOf: this.scope.tokensOf,
    });
    if (!plan.items.length) return;
    const refIds = new Map<number, string>();
    for (const item of plan.items) {
      if (item.refId || item.store === undefined) continue;
      try {
        refIds.set(item.index, await archive.put({ toolName: item.toolName, toolCallId: item.toolCallId, content: item.store }));
      } catch (err) {
        this.notes.push(`A "${item.toolName}" result could not be stored, so it was kept: ${errorText(err)}`);
      }
    }
    const cleared = applyClearPlan(this.view, plan, refIds);
    if (cleared.cleared === 0) return;
    this.view = cleared.messages;
    this.strategies.push('clear_tool_results');
    for (const item of plan.items) {
      const ref = item.refId ?? refIds.get(item.index);
      if (ref) this.clearedRefIds.push(ref);
    }
  }

  /** b) The LLM summary, when there is a summarizer. */
  private async summarize(): Promise<void> {
    const summarizer = this.chain.summarizerFor(this.scope.input);
    if (!summarizer) return;
    const r = await new SummaryStep(this.chain, summarizer, this.scope).run(this.view);
    this.notes.push(...r.notes);
    this.clearedRefIds.push(...r.refIds);
    if (!r.applied) {
      this.summaryFailure = r.notes[0];
      return;
    }
    this.view = r.applied.messages;
    this.summary = r.applied.summary;
    this.cost = r.cost;
    this.strategies.push(r.applied.strategy);
  }

  /** c) Drops the oldest turns behind a history message; what leaves the view is stored first. */
  private async dropOldestTurns(): Promise<void> {
    const { pins, target, tokensOf, ledger } = this.scope;
    const instructionsShare = this.chain.options.instructionsShare ?? DEFAULT_INSTRUCTIONS_SHARE;
    const dropped = dropWithHistory(this.view, {
      pins,
      target,
      tokensOf,
      instructionsShare,
      now: this.chain.now,
      ledger,
      summaryFailure: this.summaryFailure,
    });
    if (!dropped) return;
    const stored = await this.chain.archive.storeAll(dropped.gone);
    this.notes.push(...stored.failures);
    for (const ref of stored.refIds) if (!this.clearedRefIds.includes(ref)) this.clearedRefIds.push(ref);
    this.view = dropped.messages;
    this.strategies.push('drop_oldest_turns');
  }

  private result(view: Message[], beforeTokens: number, started: number): ChainResult {
    const { input, target } = this.scope;
    const afterTokens = this.total(view);
    const window = input.effectiveWindow ?? this.chain.options.effectiveWindow ?? Math.max(1, beforeTokens);
    return {
      messages: view,
      strategies: this.strategies,
      summary: this.summary,
      trigger: input.trigger,
      beforeTokens,
      afterTokens,
      beforeMessages: input.messages.length,
      afterMessages: view.length,
      durationMs: this.chain.now() - started,
      cost: this.cost,
      targetTokens: target,
      reachedTarget: afterTokens <= target,
      freedShare: (beforeTokens - afterTokens) / Math.max(1, window),
      clearedRefIds: this.clearedRefIds,
      storedResults: this.storedResults(),
      notes: this.notes,
    };
  }

  /** The input's results without a ref id that this pass stored (a summary stores what it summarizes), as stored. */
  private storedResults(): ToolResultMessage[] {
    return this.scope.input.messages.flatMap((m) => {
      if (m.role !== 'toolResult' || m.refId) return [];
      const refId = this.chain.archive.refOf(m);
      return refId && this.clearedRefIds.includes(refId) ? [{ ...m, refId }] : [];
    });
  }

  private overTarget(): boolean {
    return this.total(this.view) > this.scope.target;
  }

  private total(view: readonly Message[]): number {
    return view.reduce((s, m) => s + this.scope.tokensOf(m), 0);
  }
}

/** A counter that never returns a negative number or NaN. */
export function nonNegative(count: (message: Message) => number): (message: Message) => number {
  return (m) => Math.max(0, count(m) || 0);
}

/** A value read from the session through an option, and why it is missing when it could not be read. */
export interface CarriedRead<T> {
  value: T;
  note?: string;
}

/** The session's non-empty pins; none (with a note) when they cannot be read. Never rejects. */
export async function readPins(chain: Pick<ChainServices, 'options'>): Promise<CarriedRead<string[]>> {
  try {
    return { value: [...((await chain.options.pins?.()) ?? [])].filter((p) => typeof p === 'string' && p.trim() !== '') };
  } catch (err) {
    return { value: [], note: `Pins could not be read: ${errorText(err)}` };
  }
}

/** The work ledger's block; undefined (with a note) when it cannot be read. Never throws. */
export function readLedger(chain: Pick<ChainServices, 'options'>): CarriedRead<string | undefined> {
  try {
    return { value: chain.options.ledger?.()?.trim() || undefined };
  } catch (err) {
    return { value: undefined, note: `The work ledger could not be read: ${errorText(err)}` };
  }
}

/** The ledger block followed by the re-hydrated files, as carried in the history message. Never rejects. */
async function carriedBlock(chain: Pick<ChainServices, 'options'>, target: number): Promise<{ block?: string; notes: string[] }> {
  const ledger = readLedger(chain);
  const notes = ledger.note ? [ledger.note] : [];
  let files: string | undefined;
  try {
    files = await chain.options.rehydrate?.(Math.floor(target * (chain.options.rehydrateShare ?? 0.1)));
  } catch (err) {
    notes.push(`The changed files could not be re-read: ${errorText(err)}`);
  }
  return { block: [ledger.value, files?.trim()].filter((x) => x).join('\n\n') || undefined, notes };
}

/** The view with the leading history message (if any) carrying the current ledger block. */
function withCurrentLedger(view: Message[], ledger: string | undefined): Message[] {
  if (!ledger) return view;
  const parts = parseHistoryMessage(view[0]);
  if (!parts || parts.ledger === ledger) return view;
  return [historyMessage({ ...parts, ledger }, view[0].timestamp), ...view.slice(1)];
}
