/**
 * A `HistorySearchPort` over any transcript source (the session store; a test's array): it reads the
 * transcript, loads the full text of the offloaded results it names, and runs `searchTranscript`.
 */
import { searchTranscript, type TranscriptEntry } from './history-search';
import type { HistorySearchPort } from './ports';

export interface HistorySource {
  /** The transcript, oldest first. */
  transcript(): Promise<readonly TranscriptEntry[]>;
  /** The full text of a stored result; undefined when it is gone (its stub is searched instead). */
  readResult(refId: string): Promise<string | undefined>;
}

export function createHistorySearchPort(source: HistorySource): HistorySearchPort {
  return {
    async search(query, signal) {
      const entries = await source.transcript();
      const stored = new Map<string, string>();
      for (const e of entries) {
        if (signal.aborted) break;
        const m = e.message;
        if (m.role !== 'toolResult' || !m.refId || stored.has(m.refId)) continue;
        const text = await source.readResult(m.refId).catch(() => undefined);
        if (text !== undefined) stored.set(m.refId, text);
      }
      return searchTranscript(entries, query, (ref) => stored.get(ref));
    },
  };
}
