/**
 * Search History… over every session of the workspace, for the person only: the model's
 * `search_history` stays on its own session (`session-search.ts`), so nothing of another session can
 * reach its context. The current session comes first, then the others newest first, one session at a
 * time with a yield to the event loop between them, and the search stops as soon as the caller's
 * signal aborts (the next keystroke supersedes it). What other sessions hold to search is kept in
 * memory (bounded) while their stored transcript does not change, so searching as one types reads no
 * session database. Reads only. Pure (no vscode).
 */
import { createHistorySearchPort, type HistorySource } from '../tools/history-port';
import { messageText, type HistoryHit, type TranscriptEntry } from '../tools/history-search';
import type { Message } from '../providers/types';
import type { SessionSummary } from '../store';
import type { SessionSearch } from './session-search';
import type { Sessions } from './sessions';
import type { SessionStorage } from './store-lifecycle';

/** One session's share of a search over the workspace. */
export interface SessionHits {
  /** Undefined for the current session when sessions are not stored (no folder open). */
  readonly sessionId: string | undefined;
  readonly title: string;
  /** When the session last changed (ms since the epoch). */
  readonly updatedAt: number;
  readonly current: boolean;
  /** Newest first; at most what was left of the search's limit. */
  readonly hits: readonly HistoryHit[];
  /** Matches in this session (more than `hits` when limited). */
  readonly total: number;
}

/** Hits a search hands out over all sessions (the rest are counted, not listed). */
export const WORKSPACE_SEARCH_LIMIT = 200;
/**
 * Characters of other sessions' text kept in memory for search (~64 MB at two bytes a character);
 * the least recently searched session leaves first, and a session larger than this is read each time.
 */
export const SEARCH_CACHE_CHARS = 32 * 1024 * 1024;

interface Cached {
  readonly stamp: string;
  readonly entries: readonly TranscriptEntry[];
  readonly chars: number;
}

/** Gives the event loop a turn (timers, I/O, the next keystroke) between two sessions. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class WorkspaceSearch {
  private readonly cache = new Map<string, Cached>();
  private cachedChars = 0;

  constructor(
    private readonly storage: SessionStorage,
    private readonly sessions: Pick<Sessions, 'id' | 'list'>,
    private readonly current: Pick<SessionSearch, 'searchHistory'>,
    private readonly ready: () => Promise<void>,
    private readonly cacheChars = SEARCH_CACHE_CHARS,
  ) {}

  /**
   * Every session's hits for `query`, the current session first, then the others newest first; a
   * session without a match is left out. Ends early, quietly, when `signal` aborts.
   */
  async *search(query: string, signal: AbortSignal, limit = WORKSPACE_SEARCH_LIMIT): AsyncGenerator<SessionHits> {
    await this.ready();
    if (signal.aborted || !query.trim()) return;
    const currentId = this.sessions.id;
    const all = this.sessions.list();
    this.forgetGone(all);
    const own = all.find((s) => s.id === currentId);
    let left = limit;
    // The current session as the model's search sees it (also its unsaved view without a store).
    const mine = await this.current.searchHistory(query, left);
    if (signal.aborted) return;
    if (mine.total > 0) {
      left -= mine.hits.length;
      yield { sessionId: currentId, title: own?.title ?? '', updatedAt: own?.updatedAt ?? Date.now(), current: true, ...mine };
    }
    const store = this.storage.store;
    if (!store) return;
    for (const summary of all) {
      if (summary.id === currentId) continue;
      await yieldToLoop();
      if (signal.aborted) return;
      const entries = await this.entriesOf(summary).catch(() => undefined); // a session that cannot be read is skipped
      if (!entries || signal.aborted) continue;
      const results = this.storage.resultPort(summary.id);
      const source: HistorySource = {
        transcript: () => Promise.resolve(entries),
        page: (refId, offset, size) => results.page(refId, { offset, limit: size }),
      };
      const found = await createHistorySearchPort(source).search({ query, limit: Math.max(1, left) }, signal);
      if (signal.aborted) return;
      if (found.total === 0) continue;
      const hits = left > 0 ? found.hits : [];
      left -= hits.length;
      yield { sessionId: summary.id, title: summary.title, updatedAt: summary.updatedAt, current: false, hits, total: found.total };
    }
  }

  /** What of a session is searched: its stored transcript, from memory while it has not changed. */
  private async entriesOf(summary: SessionSummary): Promise<readonly TranscriptEntry[]> {
    const stamp = `${summary.messageCount}:${summary.bytes}:${summary.updatedAt}`;
    const hit = this.cache.get(summary.id);
    if (hit) {
      this.cache.delete(summary.id);
      if (hit.stamp === stamp) {
        this.cache.set(summary.id, hit); // most recently searched last
        return hit.entries;
      }
      this.cachedChars -= hit.chars;
    }
    const store = this.storage.store;
    if (!store) return [];
    const entries = (await store.sessions.transcriptOnce(summary.id)).map(searchable);
    const chars = entries.reduce((n, e) => n + messageText(e.message).length, 0);
    if (chars <= this.cacheChars) {
      this.cache.set(summary.id, { stamp, entries, chars });
      this.cachedChars += chars;
      for (const [id, old] of this.cache) {
        if (this.cachedChars <= this.cacheChars) break;
        this.cache.delete(id);
        this.cachedChars -= old.chars;
      }
    }
    return entries;
  }

  /** Drops what is kept of sessions deleted since. */
  private forgetGone(all: readonly SessionSummary[]): void {
    const ids = new Set(all.map((s) => s.id));
    for (const [id, old] of this.cache) {
      if (ids.has(id)) continue;
      this.cache.delete(id);
      this.cachedChars -= old.chars;
    }
  }
}

/**
 * A transcript entry reduced to what search reads (`messageText`): its text, the tool's name and the
 * stored result's ref; images, reasoning and usage are not kept.
 */
function searchable(e: TranscriptEntry): TranscriptEntry {
  const m = e.message;
  const content = [{ type: 'text' as const, text: messageText(m) }];
  const message: Message =
    m.role === 'toolResult'
      ? {
          role: 'toolResult',
          toolCallId: '',
          toolName: m.toolName,
          isError: m.isError,
          timestamp: m.timestamp,
          content,
          ...(m.refId ? { refId: m.refId } : {}),
        }
      : m.role === 'assistant'
        ? { ...m, content, compaction: undefined, error: undefined }
        : { role: 'user', timestamp: m.timestamp, content };
  return { seq: e.seq, turn: e.turn, message };
}
