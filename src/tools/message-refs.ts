/**
 * Lets `read_result` open transcript messages as well as stored results: a `msg_<seq>` ref (from
 * `search_history`) is paged like a stored result, with the same semantics (`pageBuffer`); any other
 * ref goes to the result store.
 */
import { messageText, seqOfRef, type TranscriptEntry } from './history-search';
import type { ResultPort } from './ports';
import { pageBuffer } from './result-paging';

/** Reads one transcript message by seq; undefined when there is none. May reject (then: not found). */
export type ReadMessage = (seq: number) => Promise<TranscriptEntry | undefined>;

export function withMessageRefs(results: ResultPort, readMessage: ReadMessage): ResultPort {
  return {
    put: (entry) => results.put(entry),
    async page(refId, options) {
      const seq = seqOfRef(refId);
      if (seq === undefined) return results.page(refId, options);
      const entry = await readMessage(seq).catch(() => undefined);
      if (!entry) return undefined;
      const m = entry.message;
      const who = m.role === 'toolResult' ? `${m.toolName} result` : m.role;
      return pageBuffer(Buffer.from(messageText(m), 'utf8'), options, `${who}, turn ${entry.turn}`);
    },
  };
}
