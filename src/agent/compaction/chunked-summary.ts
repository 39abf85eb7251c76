/**
 * Compaction that cannot deadlock: when the history to summarize does not fit the
 * summarizer's window in one request (a smaller summarizer model, a 120 %-full session after a model
 * switch), it is split into chunks that fit, each chunk is summarized, and the summaries are merged
 * hierarchically (groups that fit one merge request, level by level) into one. Only if that fails does
 * the chain fall back to dropping turns. Never throws.
 */
import { timeSlicer } from '../../common/yield';
import type { Message, ProviderRequest, Usage } from '../../providers/types';

export interface ChunkedSummaryDeps {
  /** Input tokens one summarizer request may take. */
  limit: number;
  /** Tokens of a request as the chain counts them (may count in slices that yield). */
  requestTokens(request: ProviderRequest): number | Promise<number>;
  /** The summary request for one chunk (the most clipped form). */
  chunkRequest(messages: readonly Message[]): ProviderRequest;
  /** The request merging summaries of consecutive parts, oldest first. */
  mergeRequest(summaries: readonly string[]): ProviderRequest;
  /** Asks the summarizer; undefined when it fails. */
  ask(request: ProviderRequest): Promise<{ text: string; usage: Usage } | undefined>;
}

export interface ChunkedSummary {
  summary: string;
  cost: Usage;
  /** Model requests made (chunks + merges). */
  requests: number;
  chunks: number;
}

/**
 * Consecutive chunks of `messages` whose requests fit the limit; undefined when one message alone does
 * not fit. Linear in the size of the history (rebuilding the request for every message added
 * was quadratic and blocked the host for seconds at 1M tokens): each message's share of a request is
 * measured once, chunks are filled by those shares, and each chunk is then checked against its real
 * request (parts such as the files touched are shared, not additive) and shrunk if it does not fit.
 * Yields to the event loop as it goes.
 */
export async function planChunks(
  messages: readonly Message[],
  deps: Pick<ChunkedSummaryDeps, 'limit' | 'requestTokens' | 'chunkRequest'>,
): Promise<Message[][] | undefined> {
  const slice = timeSlicer();
  const fixed = await deps.requestTokens(deps.chunkRequest([]));
  const shares: number[] = [];
  for (const m of messages) {
    const alone = await deps.requestTokens(deps.chunkRequest([m]));
    if (alone > deps.limit) return undefined;
    shares.push(Math.max(0, alone - fixed));
    await slice();
  }
  const chunks: Message[][] = [];
  for (let start = 0; start < messages.length;) {
    let end = start + 1;
    for (let sum = fixed + shares[start]; end < messages.length && sum + shares[end] <= deps.limit; end++) sum += shares[end];
    while (end - start > 1 && (await deps.requestTokens(deps.chunkRequest(messages.slice(start, end)))) > deps.limit) {
      end = Math.max(start + 1, end - Math.ceil((end - start) / 8));
      await slice();
    }
    chunks.push(messages.slice(start, end));
    start = end;
    await slice();
  }
  return chunks;
}

/**
 * One summary of `messages` (and of `previousSummary`, merged in as the oldest part), made in chunks.
 * Undefined when a single message does not fit, a request fails, or the merges cannot make progress.
 */
export async function summarizeInChunks(
  messages: readonly Message[],
  previousSummary: string | undefined,
  deps: ChunkedSummaryDeps,
): Promise<ChunkedSummary | undefined> {
  const chunks = await planChunks(messages, deps);
  if (!chunks?.length) return undefined;
  let cost: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let requests = 0;
  const ask = async (request: ProviderRequest): Promise<string | undefined> => {
    requests++;
    const r = await deps.ask(request);
    if (r) cost = add(cost, r.usage);
    return r?.text;
  };
  let level: string[] = previousSummary?.trim() ? [previousSummary.trim()] : [];
  for (const chunk of chunks) {
    const s = await ask(deps.chunkRequest(chunk));
    if (s === undefined) return undefined;
    level.push(s);
  }
  // Merge level by level: consecutive groups that fit one request, until one summary is left.
  while (level.length > 1) {
    const next: string[] = [];
    let progressed = false;
    for (let i = 0; i < level.length;) {
      let j = i + 1;
      while (j < level.length && (await deps.requestTokens(deps.mergeRequest(level.slice(i, j + 1)))) <= deps.limit) j++;
      if (j - i === 1) {
        next.push(level[i]);
      } else {
        const merged = await ask(deps.mergeRequest(level.slice(i, j)));
        if (merged === undefined) return undefined;
        next.push(merged);
        progressed = true;
      }
      i = j;
    }
    if (!progressed) return undefined; // no two summaries fit one request: give up (the chain drops turns)
    level = next;
  }
  return { summary: level[0], cost, requests, chunks: chunks.length };
}

function add(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}
