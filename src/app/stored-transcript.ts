/**
 * What a reopened session's panel pages through: its stored transcript, read a page
 * at a time, newest first, and where its compactions, snapshot restores and last clear happened (by
 * seq; the panel places them, `src/panel/stored-history.ts`), and where its turns' checkpoints ended
 * ("Changes in this turn" cards). Pure (no vscode).
 */
import { isHistoryMessage } from '../context/compaction';
import type { Message } from '../providers/types';
import type { SessionStore } from '../store';
import { changesOf, type TurnChanges } from './checkpoint-record';
import { CheckpointStore } from './checkpoint-store';

/** Messages a page read from the store holds (the panel's page size, `transcript-pages.ts` PAGE_MESSAGES). */
export const TRANSCRIPT_PAGE_MESSAGES = 150;

export interface TranscriptPage {
  messages: readonly { seq: number; message: Message }[];
  hasOlder: boolean;
}

export interface StoredTranscript {
  first: TranscriptPage;
  read(beforeSeq: number): Promise<TranscriptPage>;
  compactions: { id: string; createdAt: number; throughSeq: number | null; firstKeptSeq: number | null }[];
  restores: { createdAt: number; throughSeq: number }[];
  clear?: { clearedAt: number; afterSeq: number };
  /** The checkpoints kept with the session ("Changes in this turn"), each where its turn ended. */
  changes: { throughSeq: number; createdAt: number; changes: TurnChanges; restored: boolean }[];
}

/** The session's newest transcript page and its marks; older pages are read when the panel asks. */
export async function storedTranscript(sessions: SessionStore, id: string, limit = TRANSCRIPT_PAGE_MESSAGES): Promise<StoredTranscript> {
  const [first, records, snapshots, clear] = await Promise.all([
    sessions.transcriptPage(id, { limit }),
    sessions.listCompactions(id),
    sessions.listSnapshots(id),
    sessions.clearMarker(id),
  ]);
  const through = new Map(snapshots.map((s) => [s.id, s.throughSeq]));
  const checkpoints = new CheckpointStore(sessions, id);
  const kept = await Promise.all((await checkpoints.turns()).map((turn) => checkpoints.load(turn)));
  return {
    first,
    read: (beforeSeq) => sessions.transcriptPage(id, { beforeSeq, limit }),
    compactions: records.map((r) => ({
      id: r.id,
      createdAt: r.createdAt,
      throughSeq: r.snapshotId ? (through.get(r.snapshotId) ?? null) : null,
      firstKeptSeq: r.firstKeptSeq,
    })),
    restores: snapshots.filter((s) => s.kind === 'restore').map((s) => ({ createdAt: s.createdAt, throughSeq: s.throughSeq })),
    clear,
    changes: kept.flatMap((cp) =>
      cp && cp.throughSeq !== undefined && cp.files.length
        ? [{ throughSeq: cp.throughSeq, createdAt: cp.createdAt, changes: changesOf(cp), restored: cp.restoredAt !== undefined }]
        : [],
    ),
  };
}

/**
 * The seq of the first message of the last `turns` turns stored (the `turns`-th last prompt, as the
 * live chat counts them: summaries are not prompts), where a compaction that kept those turns puts its
 * divider; undefined when it kept none or they are not all stored.
 */
export async function firstKeptSeq(sessions: SessionStore, id: string, turns: number): Promise<number | undefined> {
  if (turns < 1) return undefined;
  let left = turns;
  let beforeSeq: number | undefined;
  for (;;) {
    const page = await sessions.transcriptPage(id, { ...(beforeSeq !== undefined ? { beforeSeq } : {}), limit: TRANSCRIPT_PAGE_MESSAGES });
    for (let i = page.messages.length - 1; i >= 0; i--) {
      const { seq, message } = page.messages[i];
      if (message.role === 'user' && !isHistoryMessage(message) && --left === 0) return seq;
    }
    if (!page.hasOlder || !page.messages.length) return undefined;
    beforeSeq = page.messages[0].seq;
  }
}
