/**
 * The current session's whole history as the model (`search_history`, `read_result`) and the person
 * (Search History…, Open Stored Result…) read it: the stored transcript, also what compaction or a
 * clear took out of the context, and the stored results. Reads only. Pure (no vscode).
 */
import { createHistorySearchPort } from '../tools/history-port';
import { messageText, seqOfRef, type HistorySearchResult, type TranscriptEntry } from '../tools/history-search';
import type { HistorySource } from '../tools';
import { HeadroomError } from '../common/errors';
import type { ResultMeta } from '../store';
import type { Sessions } from './sessions';
import type { SessionStorage } from './store-lifecycle';

export class SessionSearch {
  constructor(
    private readonly storage: SessionStorage,
    private readonly sessions: Pick<Sessions, 'id' | 'messages'>,
    private readonly ready: () => Promise<void>,
  ) {}

  /**
   * The session's whole history for search_history: the stored transcript (all of it, also before a
   * clear), or the current view when sessions are not stored.
   */
  source(): HistorySource {
    const store = this.storage.store;
    const sessionId = this.sessions.id;
    const results = this.storage.resultPort(sessionId);
    // Stored results are searched a window at a time, never read whole.
    const page = (refId: string, offset: number, limit: number) => results.page(refId, { offset, limit });
    if (!store || !sessionId) {
      const sessions = this.sessions;
      return { transcript: () => Promise.resolve(sessions.messages.map((message, i) => ({ seq: i + 1, turn: 0, message }))), page };
    }
    return { transcript: () => store.sessions.transcript(sessionId), page };
  }

  /**
   * One transcript message by seq (a `msg_<seq>` ref from search_history): the store reads just that
   * message (its segment, or the live database), not the whole transcript.
   */
  async message(seq: number): Promise<TranscriptEntry | undefined> {
    const store = this.storage.store;
    const sessionId = this.sessions.id;
    if (store && sessionId) return store.sessions.message(sessionId, seq);
    return (await this.source().transcript()).find((e) => e.seq === seq);
  }

  /** One message of another stored session (a hit of Search History… across sessions); never the model's. */
  private async messageOf(sessionId: string, seq: number): Promise<TranscriptEntry | undefined> {
    const store = this.storage.store;
    if (!store) return undefined;
    return store.sessions.message(sessionId, seq);
  }

  /**
   * One search over the whole stored transcript and stored results (what `search_history` gives the
   * model), for the user: hits newest first, each with a ref that `readResult` opens.
   */
  async searchHistory(query: string, limit = 50): Promise<HistorySearchResult> {
    await this.ready();
    return createHistorySearchPort(this.source()).search({ query, limit }, new AbortController().signal);
  }

  /** The current session's stored (offloaded) results, newest first; empty without a store. */
  storedResults(): ResultMeta[] {
    return this.storage.storedResults(this.sessions.id);
  }

  /**
   * The full text of an offloaded tool result, for "Open full result"; a `msg_<seq>` ref opens that
   * transcript message, of the current session or of `sessionId` (a hit in another session).
   */
  async readResult(refId: string, sessionId?: string): Promise<string> {
    const seq = seqOfRef(refId);
    if (seq === undefined) return this.storage.readResult(refId);
    const other = sessionId !== undefined && sessionId !== this.sessions.id;
    const entry = other ? await this.messageOf(sessionId, seq) : await this.message(seq);
    if (!entry) throw new HeadroomError('not_found', `No message ${refId} in ${other ? 'that' : 'this'} session.`);
    const m = entry.message;
    return `${m.role === 'toolResult' ? `${m.toolName} result` : m.role}, turn ${entry.turn}\n\n${messageText(m)}`;
  }
}
