/**
 * Chain step b: an LLM summary of the turns before a safe cut, recent turns verbatim, in a
 * history message that also carries the pins, the user instructions and the work ledger. In order of
 * preference: a summary prepared in the background; every M-th pass a re-summarization from the
 * originals (reference 000); a cache-preserving request over the agent's own prefix; a request of its
 * own (clipped, or chunked when the head does not fit). One object per pass; never throws.
 */
import {
  buildSummaryRequest,
  historyMessage,
  historyPartsFor,
  isHistoryMessage,
  nativeSummaryRequest,
  planSummary,
  type SummaryPlan,
} from '../../context/compaction';
import { byteEstimate } from '../../context/utf8';
import { yieldToEventLoop } from '../../common/yield';
import type { Message, Usage } from '../../providers/types';
import type { SummaryOutcome } from './background-summary';
import { fittingCachedSummary } from './cached-summary';
import { DEFAULT_INSTRUCTIONS_SHARE, type ChainServices, type PassScope } from './chain-types';
import { errorText } from './result-archive';
import { addUsage, requestTokensInSlices, type Summarizer } from './summarizer';

/** What step b did. */
export interface SummaryStepResult {
  /** The view behind a new history message; absent when no summary was applied. */
  applied?: { messages: Message[]; summary: string; strategy: SummaryStrategy };
  /** Summarizer usage of the applied summary (zeros when none). */
  cost: Usage;
  /** Ref ids of the results stored so the summarized turns stay retrievable. */
  refIds: string[];
  /** Why a part was skipped or failed. */
  notes: string[];
}

/** How the summary was made: Headroom's summary, its rebuild from the originals, or the provider's own compaction. */
type SummaryStrategy = 'summary' | 'resummarize' | 'native_summary';

const ZERO: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export class SummaryStep {
  private readonly notes: string[] = [];
  private readonly refIds: string[] = [];
  private cost: Usage = { ...ZERO };

  constructor(
    private readonly chain: ChainServices,
    private readonly summarizer: Summarizer,
    private readonly scope: PassScope,
  ) {}

  /** Summarizes the head of `view` (the pass's view after step a). */
  async run(view: Message[]): Promise<SummaryStepResult> {
    const afterPrepared = await this.usePrepared(view);
    if (afterPrepared?.done) return this.result(afterPrepared.applied);
    const current = afterPrepared?.applied.messages ?? view;
    await yieldToEventLoop();
    const plan = planSummary(current, {
      targetTokens: this.scope.target,
      tokensOf: this.scope.tokensOf,
      reserveTokens: summaryReserve(this.chain.options, this.summarizer.maxOutputTokens, this.scope),
      keepTurns: this.chain.options.keepTurns,
    });
    // Without a further summary, a prepared one already applied still stands: it was made and paid for.
    if (!plan) {
      this.notes.push('Nothing before a safe cut to summarize.');
      return this.result(afterPrepared?.applied);
    }
    await yieldToEventLoop();
    let strategy: SummaryStrategy = 'summary';
    let outcome = await this.resummarize(current, plan);
    if (outcome) strategy = 'resummarize';
    if (!outcome) {
      outcome = await this.nativeSummary(plan);
      if (outcome) strategy = 'native_summary';
    }
    outcome ??= await this.cachedSummary(plan);
    outcome ??= await this.headSummary(plan);
    if (!outcome) return this.result(afterPrepared?.applied);
    await yieldToEventLoop();
    this.chain.countSummary();
    this.refIds.push(...outcome.refs);
    this.cost = addUsage(this.cost, outcome.cost);
    const messages = this.behindHistory(current.slice(0, plan.cut), plan.tail, outcome.summary, plan.head);
    return this.result({ messages, summary: outcome.summary, strategy });
  }

  /**
   * A summary prepared in the background, applied when it still fits the history (never for a focused
   * pass). `done` when it alone reaches the target; otherwise the pass summarizes further on top of it.
   */
  private async usePrepared(view: Message[]): Promise<{ applied: NonNullable<SummaryStepResult['applied']>; done: boolean } | undefined> {
    const { background } = this.chain;
    const prepared = this.scope.input.focus ? (background.discard(), undefined) : await background.take(view);
    if (prepared === 'stale') this.notes.push('A summary prepared in the background was discarded: the history changed under it.');
    if (!prepared || prepared === 'stale') return undefined;
    this.chain.countSummary();
    this.refIds.push(...prepared.refs);
    this.cost = addUsage(this.cost, prepared.cost);
    const messages = this.behindHistory(view.slice(0, prepared.cut), view.slice(prepared.cut), prepared.summary);
    this.notes.push('Used the summary prepared in the background.');
    const total = messages.reduce((s, m) => s + this.scope.tokensOf(m), 0);
    const strategy = prepared.native ? 'native_summary' : 'summary';
    return { applied: { messages, summary: prepared.summary, strategy }, done: total <= this.scope.target };
  }

  /** Reference 000: every M-th summary is rebuilt from the originals, so summaries of summaries do not drift. */
  private async resummarize(view: Message[], plan: SummaryPlan): Promise<SummaryOutcome | undefined> {
    const { options } = this.chain;
    if (!this.chain.resummarizeDue() || !options.history) return undefined;
    try {
      const full = await options.history();
      const keptCount = view.length - plan.cut;
      const originals = full.slice(0, Math.max(0, full.length - keptCount)).filter((m) => !isHistoryMessage(m));
      const request = buildSummaryRequest(originals, {
        model: this.summarizer.model,
        focus: this.scope.input.focus,
        pins: this.scope.pins,
        maxOutputTokens: this.summarizer.maxOutputTokens,
      });
      if (!originals.length) return undefined;
      if ((await requestTokensInSlices(request, this.scope.requestTokensOf)) <= this.limit()) return await this.askAndStore(request, plan);
      // Longer than one request (the long sessions where drift matters most): rebuilt in chunks, not skipped.
      return await this.resummarizeInChunks(originals, plan);
    } catch (err) {
      this.notes.push(`The history for re-summarization could not be read: ${errorText(err)}`);
      return undefined;
    }
  }

  /** The re-summarization of originals too long for one request: clipped or in chunks, then merged. */
  private async resummarizeInChunks(originals: readonly Message[], plan: SummaryPlan): Promise<SummaryOutcome | undefined> {
    const { focus } = this.scope.input;
    const r = await this.summarizer.summarizeMessages(
      originals,
      { focus, pins: this.scope.pins, requestTokensOf: this.scope.requestTokensOf },
      this.scope.signal,
    );
    this.notes.push(...r.notes.map((n) => `Re-summarizing from the originals: ${n}`));
    if (!r.outcome) return undefined;
    const stored = await this.chain.archive.storeAll(plan.head);
    this.notes.push(...stored.failures);
    return { ...r.outcome, refs: stored.refIds };
  }

  /**
   * Cache-preserving: the agent's own prefix (system, tools, the conversation as sent) plus one
   * instruction, so the provider's prompt cache serves most of the input. Only with the agent's model.
   */
  private async cachedSummary(plan: SummaryPlan): Promise<SummaryOutcome | undefined> {
    const request = await this.cachedRequest(plan);
    return request ? this.askAndStore(request, plan) : undefined;
  }

  /** The cache-preserving summary request for the plan, when it fits. */
  private cachedRequest(plan: SummaryPlan): ReturnType<typeof fittingCachedSummary> {
    const { input } = this.scope;
    return fittingCachedSummary({
      view: input.messages,
      prefix: input.prefix,
      keptFrom: plan.tail[0],
      focus: input.focus,
      pins: this.scope.pins,
      maxOutputTokens: this.summarizer.maxOutputTokens,
      summarizerModel: this.chain.options.summarizerModel,
      summarizerWindow: this.chain.options.summarizerWindow,
      fallbackLimit: this.limit(),
      tokensOf: this.scope.tokensOf,
    });
  }

  /**
   * The provider's own compaction over the agent's prefix, where the model declares it and the user
   * allows it (`nativeCompactionFor`); its failure leaves the pass to Headroom's summary.
   */
  private async nativeSummary(plan: SummaryPlan): Promise<SummaryOutcome | undefined> {
    const native = this.chain.options.nativeCompaction?.();
    if (!native) return undefined;
    const cached = await this.cachedRequest(plan);
    const viewTokens = this.scope.input.messages.reduce((s, m) => s + this.scope.tokensOf(m), 0);
    const request = cached ? nativeSummaryRequest(cached, native, viewTokens) : undefined;
    if (!request) return undefined;
    return this.askAndStore(request, plan);
  }

  /** The summarizer's own request over the plan's head (clipped or chunked to fit). */
  private async headSummary(plan: SummaryPlan): Promise<SummaryOutcome | undefined> {
    const r = await this.summarizer.summarizeHead(
      {
        head: plan.head,
        previousSummary: plan.previous?.summary,
        focus: this.scope.input.focus,
        pins: this.scope.pins,
        requestTokensOf: this.scope.requestTokensOf,
      },
      this.scope.signal,
    );
    this.notes.push(...r.notes);
    return r.outcome;
  }

  /** Asks for `request`; on an answer stores the plan's head, so what leaves the view stays retrievable. */
  private async askAndStore(request: Parameters<Summarizer['ask']>[0], plan: SummaryPlan): Promise<SummaryOutcome | undefined> {
    const r = await this.summarizer.ask(request, this.scope.signal);
    if ('failure' in r) {
      this.notes.push(r.failure);
      return undefined;
    }
    const stored = await this.chain.archive.storeAll(plan.head);
    this.notes.push(...stored.failures);
    return { summary: r.text, cost: r.usage, refs: stored.refIds };
  }

  /** `kept` behind a history message for `gone` carrying `summary`, stamped at the last summarized message. */
  private behindHistory(gone: Message[], kept: Message[], summary: string, summarized: readonly Message[] = gone): Message[] {
    const { pins, target, tokensOf, ledger } = this.scope;
    const instructionsShare = this.chain.options.instructionsShare ?? DEFAULT_INSTRUCTIONS_SHARE;
    const parts = historyPartsFor(gone, kept, { pins, target, summary, tokensOf, instructionsShare, ledger, freshSummary: true });
    return [historyMessage(parts, summarized[summarized.length - 1]?.timestamp ?? this.chain.now()), ...kept];
  }

  /** Input tokens one summarizer request may take. */
  private limit(): number {
    return this.summarizer.inputLimit;
  }

  private result(applied: SummaryStepResult['applied']): SummaryStepResult {
    return { applied, cost: applied ? this.cost : { ...ZERO }, refIds: this.refIds, notes: this.notes };
  }
}

/** Tokens set aside for the history message: the summary's output, pins, ledger and instructions. */
export function summaryReserve(
  options: ChainServices['options'],
  summaryTokens: number,
  carried: { target: number; pins: readonly string[]; ledger: string | undefined },
): number {
  const { target, pins, ledger } = carried;
  const pinTokens = pins.reduce((s, p) => s + byteEstimate(Buffer.byteLength(p, 'utf8')) + 4, 0);
  const ledgerTokens = ledger ? byteEstimate(Buffer.byteLength(ledger, 'utf8')) + 8 : 0;
  const instructions = Math.floor(target * (options.instructionsShare ?? DEFAULT_INSTRUCTIONS_SHARE));
  return summaryTokens + pinTokens + ledgerTokens + instructions + 100;
}
