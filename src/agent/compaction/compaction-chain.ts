/**
 * The compaction chain: the thin I/O around the pure planners in
 * `context/compaction`, one per session. Each pass is a `CompactionPass` (clear old tool results →
 * LLM summary → drop the oldest turns, each step only while the view is still over its target); the
 * chain keeps what outlives a pass: the loop breaker, the summary prepared in the background, the
 * results already stored and the summary count. A loop breaker pauses automatic passes (manual ones
 * always run). Never throws; never modifies its input.
 */
import { nativeSummaryRequest, planSummary, summaryBudget } from '../../context/compaction';
import type { Message } from '../../providers/types';
import type { CompactHook, CompactInput, CompactOutput } from '../compact-hook';
import { BackgroundSummary } from './background-summary';
import { fittingCachedSummary } from './cached-summary';
import type { ChainResult, ChainServices, CompactionChain, CompactionChainOptions } from './chain-types';
import { CompactionPass, nonNegative, readLedger, readPins } from './compaction-pass';
import { LoopBreaker, type PauseState } from './loop-breaker';
import { ResultArchive } from './result-archive';
import { Summarizer } from './summarizer';
import { summaryReserve } from './summary-step';

export type { ChainResult, CompactionChain, CompactionChainOptions } from './chain-types';

export function createCompactionChain(options: CompactionChainOptions): CompactionChain {
  return new SessionCompactionChain(options);
}

class SessionCompactionChain implements CompactionChain, ChainServices {
  readonly now: () => number;
  readonly archive: ResultArchive;
  readonly background = new BackgroundSummary();
  private readonly breaker: LoopBreaker;
  private count: number;

  constructor(readonly options: CompactionChainOptions) {
    this.now = options.now ?? Date.now;
    this.breaker = new LoopBreaker({ minFreedShare: options.minFreedShare, maxFailures: options.maxFailures, now: this.now });
    this.count = options.summaryCount ?? 0;
    this.archive = new ResultArchive(options.results);
  }

  summarizerFor(input: CompactInput): Summarizer | undefined {
    // The options are read at every pass: a session may switch provider or model between passes.
    const { summarizer: provider, summarizerModel, summaryMaxTokens, summarizerWindow } = this.options;
    if (!provider) return undefined;
    const budget = summaryBudget({
      summaryMaxTokens,
      summarizerWindow,
      contextWindow: input.contextWindow ?? input.prefix?.contextWindow,
      effectiveWindow: input.effectiveWindow ?? this.options.effectiveWindow,
    });
    return new Summarizer({ provider, model: summarizerModel ?? 'default', ...budget, archive: this.archive });
  }

  readonly hook: CompactHook = async (input, signal) => {
    const r = await this.run(input, signal);
    return r ? compactOutput(r) : undefined;
  };

  get summaryCount(): number {
    return this.count;
  }

  resummarizeDue(): boolean {
    const every = this.options.resummarizeEvery ?? 10;
    return every > 0 && this.options.history !== undefined && (this.count + 1) % every === 0;
  }

  countSummary(): void {
    this.count++;
    const count = this.count;
    callSwallowingErrors(() => this.options.onSummaryCount?.(count));
  }

  // The chain's actions are bound (arrow properties): callers pass them on as callbacks (`prepare: chain.prepare`).
  readonly run = async (input: CompactInput, signal: AbortSignal): Promise<ChainResult | undefined> => {
    const manual = input.trigger === 'manual';
    if ((this.breaker.paused && !manual && !input.force) || signal.aborted) return undefined;
    const started = this.now();
    let result: ChainResult | undefined;
    try {
      const pass = await CompactionPass.open(this, input, signal);
      result = await pass.run(started);
    } catch {
      result = undefined;
    }
    const tripped = this.breaker.record({
      manual,
      produced: result !== undefined,
      reachedTarget: result?.reachedTarget ?? false,
      freedShare: result ? result.freedShare : 0,
      effectiveWindow: input.effectiveWindow,
    });
    if (result) {
      const report = result;
      callSwallowingErrors(() => this.options.onReport?.(report, input));
    }
    if (tripped) callSwallowingErrors(() => this.options.onPause?.(tripped));
    return result;
  };

  /**
   * Starts preparing a summary in the background (from the `background` threshold): of the turns a
   * compaction to `input.targetTokens` would summarize, when the cut falls at a turn start.
   */
  readonly prepare = (input: CompactInput): void => {
    try {
      const summarizer = this.summarizerFor(input);
      // A summary rebuilt from the originals is not prepared from the head: the pass makes it itself.
      if (!summarizer || this.breaker.paused || input.messages.length === 0 || this.resummarizeDue()) return;
      const tokensOf = (m: Message) => Math.max(0, input.tokensOf(m) || 0);
      const view = input.messages;
      const plan = planSummary(view, {
        targetTokens: input.targetTokens,
        tokensOf,
        reserveTokens: summaryReserve(this.options, summarizer.maxOutputTokens, {
          target: input.targetTokens,
          pins: [],
          ledger: readLedger(this).value,
        }),
        keepTurns: this.options.keepTurns,
      });
      if (!plan) return;
      const start = plan.cut - plan.head.length;
      // A cut inside the newest turn moves back to that turn's start: the prepared head must end at a turn.
      const cut = plan.tail[0] === view[plan.cut] ? plan.cut : view.indexOf(plan.tail[0]);
      if (cut <= start) return;
      this.background.prepare(view, { start, cut }, async (head, previousSummary, signal) => {
        const pins = (await readPins(this)).value;
        // Over the agent's own prefix first, as a pass does: the provider's cache serves most of it.
        const cached = await fittingCachedSummary({
          view,
          prefix: input.prefix,
          keptFrom: view[cut],
          pins,
          maxOutputTokens: summarizer.maxOutputTokens,
          summarizerModel: this.options.summarizerModel,
          summarizerWindow: this.options.summarizerWindow,
          fallbackLimit: summarizer.inputLimit,
          tokensOf,
        });
        // The provider's own compaction where the model declares it, as a pass would ask for it.
        const native = this.options.nativeCompaction?.();
        const nativeRequest =
          cached && native
            ? nativeSummaryRequest(
                cached,
                native,
                view.reduce((s, m) => s + tokensOf(m), 0),
              )
            : undefined;
        const nativeAnswer = nativeRequest ? await summarizer.ask(nativeRequest, signal) : undefined;
        const byNative = nativeAnswer !== undefined && !('failure' in nativeAnswer);
        const answer = byNative ? nativeAnswer : cached ? await summarizer.ask(cached, signal) : undefined;
        if (answer && !('failure' in answer)) {
          const stored = await this.archive.storeAll(head);
          return { summary: answer.text, cost: answer.usage, refs: stored.refIds, ...(byNative ? { native: true } : {}) };
        }
        const requestTokensOf = nonNegative(input.estimateOf ?? input.tokensOf);
        return (await summarizer.summarizeHead({ head, previousSummary, pins, requestTokensOf }, signal)).outcome;
      });
    } catch {
      // Preparing is an optimization; the compaction itself still works without it.
    }
  };

  get preparing(): boolean {
    return this.background.busy;
  }

  readonly discardPrepared = (): void => {
    this.background.discard();
  };

  get paused(): PauseState | undefined {
    return this.breaker.paused;
  }

  readonly resume = (): void => {
    this.breaker.resume();
  };

  readonly liftPause = (now: Parameters<LoopBreaker['liftIf']>[0]): boolean => this.breaker.liftIf(now);
}

/** Calls a listener; whatever it throws is swallowed, because a listener must not break compaction. */
function callSwallowingErrors(listener: () => void): void {
  try {
    listener();
  } catch {
    // Deliberately ignored (see above).
  }
}

/** What the gate's compaction hook returns for a pass. */
export function compactOutput(r: ChainResult): CompactOutput {
  return { messages: r.messages, strategies: r.strategies, summary: r.summary, cost: r.summary !== undefined ? r.cost : undefined };
}
