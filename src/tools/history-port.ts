/**
 * A `HistorySearchPort` over any transcript source (the session store; a test's array): it reads the
 * transcript and searches the full text of the stored results it names in bounded windows, so a call
 * holds one window in memory whatever the results weigh (before, 64 MB of results were read whole on
 * every call), then runs `searchTranscript`.
 */
import { searchTranscript, storedExcerpt, type StoredMatch, type TranscriptEntry } from './history-search';
import type { HistorySearchPort, ResultPage } from './ports';

export interface HistorySource {
  /** The transcript, oldest first. */
  transcript(): Promise<readonly TranscriptEntry[]>;
  /**
   * `limit` bytes of a stored result from byte `offset`, cut at character boundaries (`ResultPort.page`
   * semantics); undefined when it is gone (its stub is searched instead). May reject (then: gone).
   */
  page(refId: string, offset: number, limit: number): Promise<ResultPage | undefined>;
}

/** Bytes of a stored result searched at a time. */
export const HISTORY_WINDOW_BYTES = 1024 * 1024;
/** Bytes read around a match for its excerpt. */
export const EXCERPT_READ_BYTES = 1200;

/**
 * Where a person should land in a hit's full text: the first place the phrase occurs, else the
 * earliest of its words (the rule the search itself finds a passage by); undefined when none does.
 * Offsets are into `text`. Pure.
 */
export function hitRange(text: string, query: string): { start: number; end: number } | undefined {
  const phrase = query.trim().toLowerCase();
  if (!phrase) return undefined;
  const lower = text.toLowerCase();
  // A lowercase form of another length (a few scripts) would shift every offset: no landing then.
  if (lower.length !== text.length) return undefined;
  const at = lower.indexOf(phrase);
  if (at >= 0) return { start: at, end: at + phrase.length };
  let best: { start: number; end: number } | undefined;
  for (const w of phrase.split(/\s+/)) {
    const i = lower.indexOf(w);
    if (i >= 0 && (!best || i < best.start)) best = { start: i, end: i + w.length };
  }
  return best;
}

export function createHistorySearchPort(source: HistorySource, windowBytes = HISTORY_WINDOW_BYTES): HistorySearchPort {
  return {
    async search(query, signal) {
      const entries = await source.transcript();
      const stored = new Map<string, StoredMatch | null>();
      const phrase = query.query.trim().toLowerCase();
      const words = phrase.split(/\s+/).filter((w) => w !== '');
      for (const e of entries) {
        if (signal.aborted) break;
        const m = e.message;
        if (m.role !== 'toolResult' || !m.refId || stored.has(m.refId) || !phrase) continue;
        const match = await searchStored(source, m.refId, phrase, words, windowBytes);
        if (match !== undefined) stored.set(m.refId, match);
      }
      return searchTranscript(entries, query, (ref) => stored.get(ref));
    },
  };
}

/**
 * The first place `phrase` (else every one of `words`) occurs in a stored result, read window by
 * window with an overlap so a match across two windows is found; null when it does not occur;
 * undefined when the result is gone.
 */
async function searchStored(
  source: HistorySource,
  refId: string,
  phrase: string,
  words: string[],
  windowBytes: number,
): Promise<StoredMatch | null | undefined> {
  const overlap = Math.max(phrase.length, ...words.map((w) => w.length));
  const firstWord = new Map<string, number>(); // word → byte where it first occurs
  let carry = '';
  let offset = 0;
  for (;;) {
    const page = await source.page(refId, offset, windowBytes).catch(() => undefined);
    if (!page) return offset === 0 ? undefined : null;
    const text = carry + page.text;
    const textStart = page.offset - Buffer.byteLength(carry); // byte where `text` starts
    const byteAt = (i: number) => textStart + Buffer.byteLength(text.slice(0, i));
    const lower = text.toLowerCase();
    const at = lower.indexOf(phrase);
    if (at >= 0) return { excerpt: await excerptAround(source, refId, byteAt(at), phrase) };
    for (const w of words) {
      if (firstWord.has(w)) continue;
      const i = lower.indexOf(w);
      if (i >= 0) firstWord.set(w, byteAt(i));
    }
    if (words.length > 1 && words.every((w) => firstWord.has(w))) {
      const [word, byte] = [...firstWord].reduce((a, b) => (b[1] < a[1] ? b : a));
      return { excerpt: await excerptAround(source, refId, byte, word) };
    }
    if (page.nextOffset === undefined) return null;
    offset = page.nextOffset;
    carry = text.slice(text.length - Math.min(overlap, text.length));
  }
}

/** The passage around `needle` at byte `byte` of a stored result: one small read. */
async function excerptAround(source: HistorySource, refId: string, byte: number, needle: string): Promise<string> {
  const from = Math.max(0, byte - EXCERPT_READ_BYTES / 3);
  const page = await source.page(refId, from, EXCERPT_READ_BYTES).catch(() => undefined);
  if (!page) return '';
  const i = page.text.toLowerCase().indexOf(needle);
  return storedExcerpt(page.text, Math.max(0, i));
}
