/**
 * The summarizer as the compaction chain uses it: one request and its answer, and the summary of a
 * run of turns (the "head") that fits the summarizer's window — in one request, clipped if need be, or
 * in chunks merged hierarchically. What is summarized away is stored first, so it stays retrievable.
 * Never throws: failures come back as sentences for the pass's notes.
 */
import { buildMergeRequest, buildSummaryRequest, serializeHistory } from '../../context/compaction';
import { timeSlicer, yieldToEventLoop } from '../../common/yield';
import { byteEstimate } from '../../context/utf8';
import { complete, type Provider } from '../../providers/provider';
import type { AssistantMessage, Message, ProviderRequest, Usage } from '../../providers/types';
import type { SummaryOutcome } from './background-summary';
import { summarizeInChunks } from './chunked-summary';
import type { ResultArchive } from './result-archive';

/** The summarizer's answer, or why there is none (`overflow`: the provider said the request was too long). */
export type SummarizerAnswer = { text: string; usage: Usage } | { failure: string; overflow?: boolean };

/**
 * Share of the input limit the chunks of a history get after the provider refused a request the
 * estimate said would fit: its count is higher than ours for this text, so the chunks get a margin.
 */
const AFTER_OVERFLOW = 0.75;

/** A run of turns to summarize and what the summary must honour. */
export interface HeadToSummarize {
  head: readonly Message[];
  /** The earlier summary this one updates. */
  previousSummary?: string;
  /** `/compact <focus>` or `compact_context` instructions. */
  focus?: string;
  pins: readonly string[];
  /** Counts the summary requests' messages (a safe estimate that memoizes nothing is best). */
  requestTokensOf: (message: Message) => number;
}

/** A head summary, or none, with the sentences that say why a step was skipped or failed. */
export interface HeadSummary {
  outcome?: SummaryOutcome;
  notes: string[];
}

/** Progressively clipped forms of a summary request (the full history first). */
const CLIPS = [{}, { toolChars: 300, assistantChars: 1500 }, { toolChars: 100, assistantChars: 400 }] as const;

export interface SummarizerOptions {
  provider: Provider;
  /** Model named in the summary requests the chain builds itself. */
  model: string;
  /** Output budget of a summary (`max_tokens` of its requests). */
  maxOutputTokens: number;
  /** Input tokens one summary request may take (the output is reserved on top, inside the window). */
  inputLimit: number;
  archive: ResultArchive;
}

export class Summarizer {
  constructor(private readonly options: SummarizerOptions) {}

  get model(): string {
    return this.options.model;
  }

  get maxOutputTokens(): number {
    return this.options.maxOutputTokens;
  }

  get inputLimit(): number {
    return this.options.inputLimit;
  }

  /** Asks the summarizer; a failure when it fails or returns nothing. Never rejects. */
  async ask(request: ProviderRequest, signal: AbortSignal): Promise<SummarizerAnswer> {
    const reply = await complete(this.options.provider, request, signal);
    if (request.nativeCompaction) return nativeAnswer(reply);
    const text = reply.content
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join('')
      .trim();
    if (reply.stopReason === 'error' || reply.stopReason === 'aborted' || !text) {
      const why = reply.error?.kind ?? (text ? reply.stopReason : 'empty');
      const failure = `The summary failed (${why}${reply.error ? `: ${reply.error.message}` : ''}).`;
      return reply.error?.kind === 'context_overflow' ? { failure, overflow: true } : { failure };
    }
    return { text, usage: reply.usage };
  }

  /** Summarizes `head` (updating `previousSummary`): stores its results first, clips or chunks it to fit. */
  async summarizeHead(what: HeadToSummarize, signal: AbortSignal): Promise<HeadSummary> {
    // What is summarized away must stay retrievable: store it first, and the summarizer sees the ref ids.
    const stored = await this.options.archive.storeAll(what.head);
    await yieldToEventLoop();
    const r = await this.summarizeMessages(stored.messages, what, signal);
    const notes = [...stored.failures, ...r.notes];
    if (!r.outcome) {
      if (r.tooLong) notes.push('Older turns were dropped instead.');
      return { notes };
    }
    return { outcome: { ...r.outcome, refs: stored.refIds }, notes };
  }

  /**
   * Summarizes `messages` as they are (nothing is stored): in one request, clipped if need be, or in
   * chunks merged hierarchically when even the most clipped request does not fit. `tooLong`: not even
   * chunks fit (one message alone is over the limit).
   */
  async summarizeMessages(
    messages: readonly Message[],
    what: Omit<HeadToSummarize, 'head'>,
    signal: AbortSignal,
  ): Promise<{ outcome?: Omit<SummaryOutcome, 'refs'>; notes: string[]; tooLong?: boolean }> {
    const notes: string[] = [];
    let limit = this.inputLimit;
    const base = {
      model: this.options.model,
      focus: what.focus,
      pins: [...what.pins],
      maxOutputTokens: this.options.maxOutputTokens,
      previousSummary: what.previousSummary,
    };
    for (const clip of CLIPS) {
      const transcript = await serializeInSlices(messages, clip);
      const request = buildSummaryRequest(messages, { ...base, ...clip, transcript });
      await yieldToEventLoop();
      if ((await requestTokensInSlices(request, what.requestTokensOf)) > limit) continue;
      const r = await this.ask(request, signal);
      if (!('failure' in r)) return { outcome: { summary: r.text, cost: r.usage }, notes };
      notes.push(r.failure);
      // Refused as too long although the estimate said it fits: a smaller form, or chunks with a margin.
      if (!r.overflow) return { notes };
      limit = Math.floor(this.inputLimit * AFTER_OVERFLOW);
    }
    // Too long for one request: summarize in chunks and merge them; once more with a margin when the
    // provider refused a chunk our estimate said would fit.
    let refused = false;
    const inChunks = (chunkLimit: number) =>
      summarizeInChunks(messages, what.previousSummary, {
        limit: chunkLimit,
        requestTokens: (req) => requestTokensInSlices(req, what.requestTokensOf),
        chunkRequest: (part) => buildSummaryRequest(part, { ...base, previousSummary: undefined, ...CLIPS[2] }),
        mergeRequest: (parts) => buildMergeRequest(parts, base),
        ask: async (req) => {
          const r = await this.ask(req, signal);
          if (!('failure' in r)) return r;
          notes.push(r.failure);
          refused ||= r.overflow === true;
          return undefined;
        },
      });
    let chunked = await inChunks(limit);
    if (!chunked && refused && limit > this.inputLimit * AFTER_OVERFLOW)
      chunked = await inChunks(Math.floor(this.inputLimit * AFTER_OVERFLOW));
    if (!chunked) {
      notes.push("The summary request would not fit the summarizer's window, even in chunks.");
      return { notes, tooLong: true };
    }
    notes.push(
      `The history did not fit the summarizer's window: summarized in ${chunked.chunks} chunks and merged (${chunked.requests} requests).`,
    );
    return { outcome: { summary: chunked.summary, cost: chunked.cost }, notes };
  }
}

/** Messages serialized between two yields by `serializeInSlices`. */
const SERIALIZE_BATCH = 32;

/** `serializeHistory(messages, clip)`, made in batches that yield to the event loop (the same text). */
export async function serializeInSlices(
  messages: readonly Message[],
  clip: { toolChars?: number; assistantChars?: number },
): Promise<string> {
  const slice = timeSlicer();
  const batches: string[] = [];
  for (let at = 0; at < messages.length; at += SERIALIZE_BATCH) {
    const text = serializeHistory(messages.slice(at, at + SERIALIZE_BATCH), { ...clip, firstNumber: at + 1 });
    if (text) batches.push(text);
    await slice();
  }
  return batches.join('\n');
}

/** Characters of text counted in one piece by `requestTokensInSlices` (about a millisecond of work). */
const PIECE_CHARS = 64 * 1024;

/**
 * Input tokens of a summary request as the chain counts them (its messages plus its system text), for a
 * request of any size, in slices that yield to the event loop (the
 * request summarizing a 1M-token history is megabytes of text). A long text is counted in pieces, each
 * as a message of its own: a sum of pieces is never below the count of the whole, so it stays safe.
 */
export async function requestTokensInSlices(request: ProviderRequest, tokensOf: (m: Message) => number): Promise<number> {
  const slice = timeSlicer();
  let total = systemTokens(request);
  for (const m of request.messages) {
    const long = m.role !== 'toolResult' && m.content.some((p) => p.type === 'text' && p.text.length > PIECE_CHARS);
    if (!long) {
      total += tokensOf(m);
      await slice();
      continue;
    }
    for (const part of m.content) {
      const text = part.type === 'text' ? part.text : undefined;
      if (text === undefined) {
        total += tokensOf({ ...m, content: [part] } as Message);
        continue;
      }
      for (let at = 0; at < text.length; at += PIECE_CHARS) {
        total += tokensOf({ ...m, content: [{ type: 'text', text: text.slice(at, at + PIECE_CHARS) }] });
        await slice();
      }
    }
  }
  return total;
}

function systemTokens(request: ProviderRequest): number {
  return byteEstimate(Buffer.byteLength(request.system.map((x) => x.text).join('\n'), 'utf8'));
}

/**
 * The answer of a request that asked the provider to compact: its summary, at the cost of the
 * compaction plus whatever the request itself was billed (a reply the model wrote instead is paid too).
 */
function nativeAnswer(reply: AssistantMessage): SummarizerAnswer {
  if (reply.compaction) return { text: reply.compaction.summary, usage: addUsage(reply.compaction.usage, reply.usage) };
  const why = reply.error ? `${reply.error.kind}: ${reply.error.message}` : 'the provider answered without compacting';
  const failure = `The provider's own compaction failed (${why}); Headroom summarized instead.`;
  return reply.error?.kind === 'context_overflow' ? { failure, overflow: true } : { failure };
}

/** The sum of two usages. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}
