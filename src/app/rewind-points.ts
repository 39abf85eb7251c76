/**
 * The current session's rewind points, one timeline: each turn's checkpoint (its files and the
 * conversation before it), each compaction, the last clear, and the snapshots the person saved, newest
 * first. A point says whether restoring it can do anything now: a used-up checkpoint, a compaction
 * the conversation went on from, a clear followed by new messages and the views a restore left
 * behind are not rewind points a person can take. Reads only. Pure (no vscode).
 */
import { userText } from '../providers/message-text';
import type { Message } from '../providers/types';
import type { HeadroomStore, SnapshotInfo, StoredMessage } from '../store';
import { CheckpointStore } from './checkpoint-store';

/** One moment of the session the person can go back to (or, with `restorable: false`, see that it was). */
export type RewindPoint =
  | { kind: 'checkpoint'; at: number; turn: number; prompt: string; files: string[] }
  | {
      kind: 'compaction';
      at: number;
      beforeMessages: number;
      afterMessages: number;
      beforeTokens: number;
      afterTokens: number;
      /** Undo can bring the context from before it back: it is the newest change of the context. */
      restorable: boolean;
    }
  | { kind: 'clear'; at: number; /** Messages the model had before the clear. */ messages: number; restorable: boolean }
  | { kind: 'snapshot'; at: number; id: string; name: string | null; messages: number };

/** Transcript pages read (newest first) to find the checkpoints' prompts; older ones go without. */
const PROMPT_PAGES = 8;
const PAGE = 500;

/** The session's rewind points, newest first. Never rejects for a damaged record: it is left out. */
export async function rewindPoints(store: HeadroomStore, id: string): Promise<RewindPoint[]> {
  const sessions = store.sessions;
  const snapshots = await sessions.listSnapshots(id);
  const canUndo = !store.readOnly && (await sessions.canUndoCompaction(id));
  const compactions = await sessions.listCompactions(id);
  const checkpoints = new CheckpointStore(sessions, id);
  const open = (await Promise.all((await checkpoints.turns()).map((t) => checkpoints.load(t)))).filter(
    (c) => c !== undefined && c.restoredAt === undefined && c.files.length > 0,
  );
  const prompts = await turnPrompts(
    store,
    id,
    open.map((c) => c!.turn),
  );
  const points: RewindPoint[] = open.map((c) => ({
    kind: 'checkpoint',
    at: c!.createdAt,
    turn: c!.turn,
    prompt: prompts.get(c!.turn) ?? '',
    files: c!.files.map((f) => f.path),
  }));
  compactions.forEach((c, i) =>
    points.push({
      kind: 'compaction',
      at: c.createdAt,
      beforeMessages: c.beforeMessages,
      afterMessages: c.afterMessages,
      beforeTokens: c.beforeTokens,
      afterTokens: c.afterTokens,
      // Only the newest compaction, and only while nothing else replaced the context since.
      restorable: i === 0 && canUndo,
    }),
  );
  const clear = await clearPoint(store, id, snapshots);
  if (clear) points.push(clear);
  for (const s of snapshots)
    if (s.kind === 'named' && s.messageCount > 0)
      points.push({ kind: 'snapshot', at: s.createdAt, id: s.id, name: s.description?.trim() || null, messages: s.messageCount });
  return points.sort((a, b) => b.at - a.at);
}

/**
 * The context the last clear took away: the resume view it replaced (the newest compaction or restore
 * before it, then the messages up to the clear). Undefined when the session was never cleared.
 */
export async function beforeClear(
  store: HeadroomStore,
  id: string,
): Promise<{ messages: Message[]; afterSeq: number; clearedAt: number } | undefined> {
  const marker = await store.sessions.clearMarker(id);
  if (!marker) return undefined;
  const base = (await store.sessions.listSnapshots(id)).find((s) => s.kind !== 'named' && s.createdAt < marker.clearedAt);
  const snap = base ? await store.sessions.getSnapshot(id, base.id) : undefined;
  const from = snap?.throughSeq ?? 0;
  const tail = from < marker.afterSeq ? await store.sessions.transcript(id, { fromSeq: from + 1, limit: marker.afterSeq - from }) : [];
  return {
    messages: [...(snap?.messages ?? []), ...tail.filter((e) => e.seq <= marker.afterSeq).map((e) => e.message)],
    afterSeq: marker.afterSeq,
    clearedAt: marker.clearedAt,
  };
}

/**
 * Whether the last clear can be undone now: nothing was sent since, and no restore replaced the
 * context after it (then undoing the clear would throw that away).
 */
export async function clearUndoable(store: HeadroomStore, id: string, snapshots?: readonly SnapshotInfo[]): Promise<boolean> {
  const marker = await store.sessions.clearMarker(id);
  if (!marker || store.readOnly) return false;
  const last = (await store.sessions.transcriptPage(id, { limit: 1 })).messages.at(-1)?.seq ?? 0;
  const list = snapshots ?? (await store.sessions.listSnapshots(id));
  return last <= marker.afterSeq && !list.some((s) => s.kind !== 'named' && s.createdAt >= marker.clearedAt);
}

async function clearPoint(store: HeadroomStore, id: string, snapshots: readonly SnapshotInfo[]): Promise<RewindPoint | undefined> {
  const before = await beforeClear(store, id);
  if (!before) return undefined;
  const restorable = before.messages.length > 0 && (await clearUndoable(store, id, snapshots));
  return { kind: 'clear', at: before.clearedAt, messages: before.messages.length, restorable };
}

/** The first user prompt of each of `turns`, read from the newest transcript pages back. */
async function turnPrompts(store: HeadroomStore, id: string, turns: readonly number[]): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (!turns.length) return found;
  const oldest = Math.min(...turns);
  const wanted = new Set(turns);
  let before: number | undefined;
  for (let page = 0; page < PROMPT_PAGES; page++) {
    const { messages, hasOlder } = await store.sessions.transcriptPage(id, { beforeSeq: before, limit: PAGE });
    // Oldest first within the page: walking it backwards, the last user message seen of a turn is its first.
    for (const e of [...messages].reverse()) if (wanted.has(e.turn) && e.message.role === 'user') found.set(e.turn, promptOf(e));
    if (!hasOlder || !messages.length || messages[0].turn < oldest) break;
    before = messages[0].seq;
  }
  return found;
}

function promptOf(e: StoredMessage): string {
  return e.message.role === 'user' ? userText(e.message, 'omit').replace(/\s+/g, ' ').trim() : '';
}
