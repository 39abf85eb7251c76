/**
 * What the session does with checkpoints: start one per turn (its writes are recorded through the
 * workspace wrapper), say what a turn changed, and restore a turn's checkpoint: its files back as
 * they were before the turn AND the conversation rewound to before it (a `restore` snapshot of the
 * context as it was; the transcript keeps everything). Pure (no vscode).
 */
import { HeadroomError } from '../common/errors';
import type { Message } from '../providers/types';
import type { HeadroomStore } from '../store';
import type { WorkspacePort } from '../tools/ports';
import { checkpointRoot, target } from './checkpoint-files';
import { beforeText, changesOf, type TurnChanges } from './checkpoint-record';
import { CheckpointStore } from './checkpoint-store';
import { checkpointingWorkspace, planRestore, restoreFiles, TurnCheckpoint } from './checkpoints';
import type { SessionCore } from './session-core';
import { openSession } from './session-switching';

export { changesOf, type TurnChanges } from './checkpoint-record';

/** The person's answer about files changed since the turn. */
export type OverwriteAnswer = 'overwrite' | 'keep' | 'cancel';

export interface RestoreOutcome {
  turn: number;
  restored: string[];
  /** Files left as they are: changed since the turn and kept, or not restorable. */
  kept: string[];
  notRestorable: Array<{ path: string; reason: string }>;
}

/** The workspace the turn's tools write through: every write is checkpointed when the session is stored. */
export function checkpointedWorkspace(core: SessionCore, base: WorkspacePort): WorkspacePort {
  core.checkpoint = undefined;
  if (!core.store || core.store.readOnly || !core.summary) return base;
  const store = core.store;
  const id = core.summary.id;
  const checkpoints = new CheckpointStore(store.sessions, id);
  const checkpoint = new TurnCheckpoint(
    checkpointRoot(base.root),
    () => store.sessions.lastTurn(id),
    (record) => checkpoints.save(record),
    (m) => core.env.log.warn(m),
  );
  core.checkpoint = checkpoint;
  return checkpointingWorkspace(base, checkpoint);
}

/**
 * The turn ended: its checkpoint notes the seq of the turn's last message, so a reopened session shows
 * its card where the turn ended. Never rejects.
 */
export async function sealTurn(core: SessionCore): Promise<void> {
  const checkpoint = core.checkpoint;
  if (!checkpoint?.current || !core.store || core.store.readOnly || !core.summary) return;
  try {
    const last = (await core.store.sessions.transcriptPage(core.summary.id, { limit: 1 })).messages.at(-1)?.seq;
    if (last !== undefined) await checkpoint.seal(last);
  } catch (err) {
    core.env.log.warn(`checkpoint: ${String(err)}`);
  }
}

/** The files the last turn changed; undefined when it changed none. */
export function turnChanges(core: SessionCore): TurnChanges | undefined {
  const cp = core.checkpoint?.current;
  return cp && cp.files.length ? changesOf(cp) : undefined;
}

function checkpointsOf(core: SessionCore): { store: HeadroomStore; id: string; checkpoints: CheckpointStore; root: string } {
  const { store, id } = core.writable();
  const folder = core.env.folder();
  if (!folder) throw new HeadroomError('invalid_request', 'Open the workspace folder first.');
  return { store, id, checkpoints: new CheckpointStore(store.sessions, id), root: folder.root };
}

/** The text of `path` before turn `turn` (the diff's left side). */
export async function beforeOf(core: SessionCore, turn: number, path: string): Promise<string> {
  const { checkpoints } = checkpointsOf(core);
  const file = (await checkpoints.load(turn))?.files.find((f) => f.path === path);
  if (!file) throw new HeadroomError('not_found', `No checkpoint of ${path} for turn ${turn}.`);
  return beforeText(file.before);
}

/** The absolute path of a checkpointed file now (the diff's right side), checked to be inside the workspace. */
export async function currentPathOf(core: SessionCore, path: string): Promise<string> {
  const { root } = checkpointsOf(core);
  return (await target(checkpointRoot(root), path)).abs;
}

/**
 * Restores turn `turn`'s checkpoint: asks `confirmOverwrite` about files changed since the turn
 * ('keep' leaves them, 'cancel' changes nothing), puts the files back, then rewinds the conversation
 * to before the turn. Refuses a damaged record or one naming a path outside the workspace, before
 * changing anything.
 */
export async function restoreCheckpoint(
  core: SessionCore,
  turn: number,
  confirmOverwrite: (paths: string[]) => Promise<OverwriteAnswer>,
): Promise<RestoreOutcome | undefined> {
  core.assertIdle('restoring a checkpoint');
  const { store, id, checkpoints, root } = checkpointsOf(core);
  const cp = await checkpoints.load(turn);
  if (!cp) throw new HeadroomError('not_found', `There is no stored checkpoint for turn ${turn}.`);
  if (cp.restoredAt !== undefined) throw new HeadroomError('invalid_request', `Turn ${turn} was already restored or rewound.`);
  const at = checkpointRoot(root);
  const plan = await planRestore(at, cp);
  let skip = new Set<string>();
  if (plan.conflicts.length) {
    const answer = await confirmOverwrite(plan.conflicts);
    if (answer === 'cancel') return undefined;
    if (answer === 'keep') skip = new Set(plan.conflicts);
  }
  const restored = await restoreFiles(at, cp, skip);
  await rewindTo(core, store, id, turn);
  await checkpoints.markRestored(turn);
  return { turn, restored, kept: [...skip], notRestorable: plan.notRestorable };
}

/** Makes the context as it was before turn `turn` the resume view, and reopens the session on it. */
async function rewindTo(core: SessionCore, store: HeadroomStore, id: string, turn: number): Promise<void> {
  const transcript = await store.sessions.transcript(id);
  const first = transcript.find((e) => e.turn >= turn)?.seq;
  if (first === undefined) throw new HeadroomError('not_found', `Turn ${turn} is not in this session's transcript.`);
  const view = await store.sessions.contextView(id, { rollingWindowMs: core.models.contextSettings().rollingWindowMs || undefined });
  let messages: Message[];
  if (!view.snapshot || view.snapshot.throughSeq < first) {
    // The context's summary (if any) is older than the turn: keep it and the messages up to the turn.
    const head = view.messages.slice(0, view.messages.length - view.tail.length);
    messages = [...head, ...view.tail.filter((e) => e.seq < first).map((e) => e.message)];
  } else {
    // Compacted since the turn began: the newest compaction or restore older than the turn, then the transcript to the turn.
    const older = (await store.sessions.listSnapshots(id)).find((s) => s.kind !== 'named' && s.throughSeq < first);
    const base = older ? await store.sessions.getSnapshot(id, older.id) : undefined;
    const from = base?.throughSeq ?? 0;
    messages = [...(base?.messages ?? []), ...transcript.filter((e) => e.seq > from && e.seq < first).map((e) => e.message)];
  }
  await store.sessions.saveSnapshot(id, { kind: 'restore', messages, description: `before turn ${turn}` });
  await openSession(core, id);
}
