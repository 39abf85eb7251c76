/**
 * Lets `read_result` open transcript messages as well as stored results: a `msg_<seq>` ref (from
 * `search_history`) is paged like a stored result, through the same engine (`pageSource`), so its
 * grep runs in the pattern worker under the call's budget, never on the host's thread; any other ref
 * goes to the result store.
 */
import { messageText, seqOfRef, type TranscriptEntry } from './history-search';
import type { ResultPort } from './ports';
import { bufferSource, pageSource } from './result-port';

/** Reads one transcript message by seq; undefined when there is none. May reject (then: not found). */
export type ReadMessage = (seq: number) => Promise<TranscriptEntry | undefined>;

export function withMessageRefs(results: ResultPort, readMessage: ReadMessage): ResultPort {
  return {
    put: (entry) => results.put(entry),
    async page(refId, options, signal) {
      const seq = seqOfRef(refId);
      if (seq === undefined) return results.page(refId, options, signal);
      const entry = await readMessage(seq).catch(() => undefined);
      if (!entry) return undefined;
      const m = entry.message;
      const who = m.role === 'toolResult' ? `${m.toolName} result` : m.role;
      return pageSource(bufferSource(Buffer.from(messageText(m), 'utf8'), `${who}, turn ${entry.turn}`), options, { signal });
    },
  };
}
