/**
 * Makes every compaction pass visible and cancellable: it reports the pass's start
 * (`compaction_start`, with how many messages it expects to summarize) and end (`compaction_end`, with
 * what changed), and `cancel()` aborts the running pass — its summary request included. A cancelled
 * pass yields nothing, so the context stays exactly as it was. One runner per session; passes run one
 * at a time (the gate's and the manual ones never overlap: manual compaction refuses while a turn runs).
 * Pure (no vscode); never throws.
 */
import { planSummary } from '../../context/compaction';
import type { CompactionReceipt } from '../../protocol/view-models';
import type { Message, ToolResultMessage } from '../../providers/types';
import type { CompactInput } from '../compact-hook';
import type { AgentEvent, CompactionChange } from '../events';

/** What a pass returns that the runner needs to report it. */
export interface RunnerPass {
  messages: Message[];
  strategies: string[];
  summary?: string;
  /** Ref ids of the results the pass stored or cleared. */
  clearedRefIds: string[];
  /** The input's results without a ref id that the pass stored, as stored. */
  storedResults?: ToolResultMessage[];
  /** What the compacted view still carries of what left it. */
  receipt?: CompactionReceipt;
}

/** Tokens a summary's history message is assumed to take when estimating what will be summarized. */
const SUMMARY_RESERVE = 2_100;

export class CompactionRunner {
  private current: AbortController | undefined;
  private outcome: 'done' | 'cancelled' | 'nothing' | undefined;

  /** @param emit receives `compaction_start` / `compaction_end`; must not throw (guarded). */
  constructor(private readonly emit: (event: AgentEvent) => void) {}

  /** How the last pass ended (undefined before the first). */
  get lastOutcome(): 'done' | 'cancelled' | 'nothing' | undefined {
    return this.outcome;
  }

  /** True while a pass runs. */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** Aborts the running pass (its summary request too); false when none runs. */
  cancel(): boolean {
    if (!this.current) return false;
    this.current.abort();
    return true;
  }

  /**
   * True while the running pass is being cancelled or stopped: a listener that persists the pass's
   * result (called before the pass returns) must skip it then, since the runner will discard it.
   */
  get aborting(): boolean {
    return this.current?.signal.aborted ?? false;
  }

  /**
   * Runs `pass` with a signal that aborts when `outer` does (the turn was stopped) or on `cancel()`.
   * Resolves undefined when the pass produced nothing, was cancelled or stopped, or threw.
   */
  async run<T extends RunnerPass>(
    input: CompactInput,
    outer: AbortSignal | undefined,
    pass: (signal: AbortSignal) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const controller = new AbortController();
    const stop = () => controller.abort();
    if (outer?.aborted) return undefined;
    outer?.addEventListener('abort', stop, { once: true });
    this.current = controller;
    this.report({ type: 'compaction_start', trigger: input.trigger, summarizing: expectedSummarized(input) });
    let result: T | undefined;
    try {
      result = await pass(controller.signal);
    } catch {
      result = undefined;
    } finally {
      outer?.removeEventListener('abort', stop);
      this.current = undefined;
    }
    if (controller.signal.aborted) {
      this.outcome = 'cancelled';
      this.report({ type: 'compaction_end', outcome: 'cancelled' });
      return undefined;
    }
    if (!result) {
      this.outcome = 'nothing';
      this.report({ type: 'compaction_end', outcome: 'nothing' });
      return undefined;
    }
    const change = compactionChange(input.messages, result);
    this.outcome = 'done';
    this.report({ type: 'compaction_end', outcome: 'done', change });
    return result;
  }

  private report(event: AgentEvent): void {
    try {
      this.emit(event);
    } catch {
      // A listener must not break compaction.
    }
  }
}

/**
 * How many messages a pass to `input.targetTokens` would take out of the verbatim context: those
 * before the summary's cut (an earlier summary not counted). An estimate for the progress row.
 */
export function expectedSummarized(input: Pick<CompactInput, 'messages' | 'tokensOf' | 'targetTokens'>): number {
  try {
    const plan = planSummary(input.messages, {
      targetTokens: input.targetTokens,
      tokensOf: input.tokensOf,
      reserveTokens: Math.min(SUMMARY_RESERVE, Math.floor(input.targetTokens / 2)),
    });
    return plan ? plan.head.length : 0;
  } catch {
    return 0;
  }
}

/** What a pass did to the context it was given (`before`): the "what left" view and the stored record are made from it. */
export function compactionChange(before: readonly Message[], pass: RunnerPass): CompactionChange {
  return {
    before,
    after: pass.messages,
    strategies: pass.strategies,
    storedRefIds: pass.clearedRefIds,
    ...(pass.storedResults?.length ? { storedResults: pass.storedResults } : {}),
    ...(pass.summary !== undefined ? { summary: pass.summary } : {}),
    ...(pass.receipt ? { receipt: pass.receipt } : {}),
  };
}
