/**
 * One search over the whole transcript: every message of every role, and the full text of every
 * stored tool result, whether it is still in the context or not (searched by the port in bounded
 * windows, `history-port.ts`). Each hit names a ref id that `read_result` opens: `msg_<seq>` for a
 * transcript message, the result's own `res_…` id for stored output. Pure; never throws.
 */
import type { Message } from '../providers/types';

/** A transcript message as the store keeps it (structurally `StoredMessage`). */
export interface TranscriptEntry {
  seq: number;
  turn: number;
  message: Message;
}

export type HistoryRole = 'user' | 'assistant' | 'tool' | 'any';

export interface HistoryQuery {
  /** Case-insensitive: the phrase, or else every word of it, must occur. */
  query: string;
  role?: HistoryRole;
  /** Inclusive turn range of the session. */
  fromTurn?: number;
  toTurn?: number;
  /** Hits returned (newest first); default 10. */
  limit?: number;
}

export interface HistoryHit {
  /** Opens with read_result. */
  ref: string;
  seq: number;
  turn: number;
  role: 'user' | 'assistant' | 'tool';
  toolName?: string;
  /** The matching passage, on one line. */
  excerpt: string;
}

export interface HistorySearchResult {
  hits: HistoryHit[];
  /** Matches in total (more than `hits` when limited). */
  total: number;
}

const EXCERPT_CHARS = 240;

/** What the port found in one stored result's full text: the passage around the match. */
export interface StoredMatch {
  excerpt: string;
}

/** The ref id of a transcript message, and back. */
export const messageRef = (seq: number): string => `msg_${seq}`;
export function seqOfRef(ref: string): number | undefined {
  const m = /^msg_(\d{1,15})$/.exec(ref);
  return m ? Number(m[1]) : undefined;
}

/** The searchable text of a message: text, tool calls with their arguments, result text. */
export function messageText(m: Message): string {
  if (m.role === 'assistant') {
    return m.content
      .map((p) =>
        p.type === 'text' ? p.text : p.type === 'toolCall' ? `[calls ${p.name}] ${p.rawArguments ?? JSON.stringify(p.arguments)}` : '',
      )
      .filter((t) => t !== '')
      .join('\n');
  }
  return m.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n');
}

/**
 * Searches `entries` (oldest first). `stored(refId)` says what the search found in an offloaded
 * result's full text (whose transcript entry holds only a stub): a match (the hit then names the
 * stored result's ref id), null for none, undefined when the result is gone (its stub is searched).
 */
export function searchTranscript(
  entries: readonly TranscriptEntry[],
  query: HistoryQuery,
  stored: (refId: string) => StoredMatch | null | undefined = () => undefined,
): HistorySearchResult {
  const phrase = query.query.trim().toLowerCase();
  if (!phrase) return { hits: [], total: 0 };
  const words = phrase.split(/\s+/).filter((w) => w !== '');
  const role = query.role ?? 'any';
  const limit = Math.max(1, Math.floor(query.limit ?? 10));
  const hits: HistoryHit[] = [];
  let total = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const { seq, turn, message } = entries[i];
    const r = message.role === 'toolResult' ? 'tool' : message.role;
    if (role !== 'any' && role !== r) continue;
    if ((query.fromTurn !== undefined && turn < query.fromTurn) || (query.toTurn !== undefined && turn > query.toTurn)) continue;
    const full = message.role === 'toolResult' && message.refId ? stored(message.refId) : undefined;
    let passage: string;
    if (full !== undefined) {
      if (full === null) continue;
      passage = full.excerpt;
    } else {
      const text = messageText(message);
      const at = findInText(text, phrase, words);
      if (at < 0) continue;
      passage = storedExcerpt(text, at);
    }
    total++;
    if (hits.length >= limit) continue;
    hits.push({
      ref: full ? (message as { refId: string }).refId : messageRef(seq),
      seq,
      turn,
      role: r,
      ...(message.role === 'toolResult' ? { toolName: message.toolName } : {}),
      excerpt: passage,
    });
  }
  return { hits, total };
}

/** Index of the phrase (lower case), else of the first word when every word occurs; -1 otherwise. */
export function findInText(text: string, phrase: string, words: string[]): number {
  const lower = text.toLowerCase();
  const at = lower.indexOf(phrase);
  if (at >= 0 || words.length < 2) return at;
  const positions = words.map((w) => lower.indexOf(w));
  return positions.every((p) => p >= 0) ? Math.min(...positions) : -1;
}

/** The passage of `text` around character `at`, on one line. */
export function storedExcerpt(text: string, at: number): string {
  const start = Math.max(0, at - Math.floor(EXCERPT_CHARS / 3));
  const end = Math.min(text.length, start + EXCERPT_CHARS);
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}
