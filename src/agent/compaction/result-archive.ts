/**
 * Where the compaction chain stores tool results before they leave the view, so that everything a pass
 * clears, summarizes or drops stays retrievable with `read_result`. It lives as long as the chain: a
 * result stored by an earlier step, an earlier pass or a background summary is not stored twice.
 * Never throws: a failed store is reported in the returned value and the message is kept as it was.
 */
import { resultText } from '../../context/compaction';
import type { Message } from '../../providers/types';
import type { ResultPort } from '../../tools/ports';

/** The outcome of storing a set of messages. */
export interface StoredMessages {
  /** The input, with every tool result that could be stored carrying its ref id. */
  messages: Message[];
  /** Ref ids of the stored results (new and already stored), in order, without repeats. */
  refIds: string[];
  /** One sentence per result that could not be stored. */
  failures: string[];
}

export class ResultArchive {
  // Keyed by message object: the chain never modifies its input, so an object is one result.
  private readonly storedRefs = new WeakMap<Message, string>();

  constructor(private readonly port: Pick<ResultPort, 'put'>) {}

  /** Stores one entry (a result step a clears); rejects when the port does. */
  put(entry: { toolName: string; toolCallId: string; content: string }): Promise<string> {
    return this.port.put(entry);
  }

  /** The ref id `message` was stored under by this archive (undefined when it was not). */
  refOf(message: Message): string | undefined {
    return this.storedRefs.get(message);
  }

  /** Copies of `messages` where every tool result has a ref id: results never stored are stored now. */
  async storeAll(messages: readonly Message[]): Promise<StoredMessages> {
    const out: StoredMessages = { messages: [], refIds: [], failures: [] };
    for (const m of messages) {
      if (m.role !== 'toolResult' || m.refId) {
        out.messages.push(m);
        continue;
      }
      try {
        const refId =
          this.storedRefs.get(m) ?? (await this.port.put({ toolName: m.toolName, toolCallId: m.toolCallId, content: resultText(m) }));
        this.storedRefs.set(m, refId);
        if (!out.refIds.includes(refId)) out.refIds.push(refId);
        out.messages.push({ ...m, refId });
      } catch (err) {
        out.failures.push(`A "${m.toolName}" result could not be stored: ${errorText(err)}`);
        out.messages.push(m);
      }
    }
    return out;
  }
}

/** The message of a thrown value, for a note a person can read. */
export function errorText(err: unknown): string {
  return String((err as Error)?.message ?? err);
}
