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
import type { Message, ProviderRequest, Usage } from '../../providers/types';
import type { SummaryOutcome } from './background-summary';
import { summarizeInChunks } from './chunked-summary';
import type { ResultArchive } from './result-archive';

/** The summarizer's answer, or why there is none. */
export type SummarizerAnswer = { text: string; usage: Usage } | { failure: string };

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
    const text = reply.content
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join('')
      .trim();
    if (reply.stopReason === 'error' || reply.stopReason === 'aborted' || !text) {
      const why = reply.error?.kind ?? (text ? reply.stopReason : 'empty');
      return { failure: `The summary failed (${why}${reply.error ? `: ${reply.error.message}` : ''}).` };
    }
    return { text, usage: reply.usage };
  }

  /** Summarizes `head` (updating `previousSummary`): stores its results first, clips or chunks it to fit. */
  async summarizeHead(what: HeadToSummarize, signal: AbortSignal): Promise<HeadSummary> {
    // What is summarized away must stay retrievable: store it first, and the summarizer sees the ref ids.
    const stored = await this.options.archive.storeAll(what.head);
    await yieldToEventLoop();
    const notes = [...stored.failures];
    const refs = stored.refIds;
    const base = {
      model: this.options.model,
      focus: what.focus,
      pins: [...what.pins],
      maxOutputTokens: this.options.maxOutputTokens,
      previousSummary: what.previousSummary,
    };
    for (const clip of CLIPS) {
      const transcript = await serializeInSlices(stored.messages, clip);
      const request = buildSummaryRequest(stored.messages, { ...base, ...clip, transcript });
      await yieldToEventLoop();
      if ((await requestTokensInSlices(request, what.requestTokensOf)) > this.inputLimit) continue;
      const r = await this.ask(request, signal);
      if ('failure' in r) return { notes: [...notes, r.failure] };
      return { outcome: { summary: r.text, cost: r.usage, refs }, notes };
    }
    // Too long for one request: summarize in chunks and merge them (only if that fails are turns dropped).
    const chunked = await summarizeInChunks(stored.messages, what.previousSummary, {
      limit: this.inputLimit,
      requestTokens: (req) => requestTokensInSlices(req, what.requestTokensOf),
      chunkRequest: (messages) => buildSummaryRequest(messages, { ...base, previousSummary: undefined, ...CLIPS[2] }),
      mergeRequest: (parts) => buildMergeRequest(parts, base),
      ask: async (req) => {
        const r = await this.ask(req, signal);
        if (!('failure' in r)) return r;
        notes.push(r.failure);
        return undefined;
      },
    });
    if (!chunked) {
      notes.push("The summary request would not fit the summarizer's window, even in chunks; older turns were dropped instead.");
      return { notes };
    }
    notes.push(
      `The history did not fit the summarizer's window: summarized in ${chunked.chunks} chunks and merged (${chunked.requests} requests).`,
    );
    return { outcome: { summary: chunked.summary, cost: chunked.cost, refs }, notes };
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
