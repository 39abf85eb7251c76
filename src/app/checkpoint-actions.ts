/**
 * The session's checkpoints: one begins with each turn (its writes are recorded through the
 * workspace wrapper), say what a turn changed, and restore a turn's checkpoint: its files back as
 * they were before the turn AND the conversation rewound to before it (a `restore` snapshot of the
 * context as it was; the transcript keeps everything). The running (or last) turn's checkpoint is
 * this owner's state. Pure (no vscode).
 */
import { parseLedgerState, type LedgerState } from '../agent/ledger';
import { HeadroomError } from '../common/errors';
import { isHistoryMessage } from '../context/compaction';
import type { Message, UserMessage } from '../providers/types';
import type { HeadroomStore } from '../store';
import type { WorkspacePort } from '../tools/ports';
import { checkpointRoot, target } from './checkpoint-files';
import { beforeText, changesOf, type TurnChanges } from './checkpoint-record';
import { CheckpointStore } from './checkpoint-store';
import { checkpointingWorkspace, laterTurnsFirst, planRestore, restoreFiles, TurnCheckpoint } from './checkpoints';
import type { HostEnvironment } from './host-environment';
import type { ModelAccess } from './model-access';
import type { Sessions } from './sessions';

export type { TurnChanges } from './checkpoint-record';

/** The person's answer about files changed since the turn. */
export type OverwriteAnswer = 'overwrite' | 'keep' | 'cancel';

export interface RestoreOutcome {
  turn: number;
  restored: string[];
  /** Files left as they are: changed since the turn and kept, or not restorable. */
  kept: string[];
  notRestorable: Array<{ path: string; reason: string }>;
  /** The rewound turn's prompt: it goes back to the message box, to edit and send again. */
  prompt?: UserMessage;
  /** How many prompts (the turn's and later ones, steering included) left the conversation. */
  rewoundPrompts: number;
}

export class Checkpoints {
  /** The running (or last) turn's checkpoint: the files it changed, as they were before. */
  private checkpoint: TurnCheckpoint | undefined;

  constructor(
    private readonly env: HostEnvironment,
    private readonly sessions: Pick<Sessions, 'id' | 'writable' | 'assertIdle' | 'open'>,
    private readonly storage: { readonly writable: HeadroomStore | undefined },
    private readonly models: Pick<ModelAccess, 'contextSettings'>,
    /** The session's work ledger now (kept with each turn's checkpoint, so a restore rewinds it too). */
    private readonly ledger: () => LedgerState,
  ) {}

  /** A turn begins: its checkpoint starts empty; the workspace it returns checkpoints every write first (when the session is stored). */
  beginTurn(base: WorkspacePort, resumed = false): WorkspacePort {
    // A retry writes into the failed turn's checkpoint: what it kept of each file is still the turn's start.
    const going = this.checkpoint;
    if (resumed && going) return checkpointingWorkspace(base, going);
    this.checkpoint = undefined;
    const store = this.storage.writable;
    const id = this.sessions.id;
    if (!store || !id) return base;
    const checkpoints = new CheckpointStore(store.sessions, id);
    const ledgerBefore = JSON.stringify(this.ledger());
    const checkpoint = new TurnCheckpoint(
      checkpointRoot(base.root),
      () => store.sessions.lastTurn(id),
      (record) => checkpoints.save({ ...record, ledgerBefore }),
      (m) => this.env.log.warn(m),
    );
    this.checkpoint = checkpoint;
    return checkpointingWorkspace(base, checkpoint);
  }

  /**
   * The turn ended: its checkpoint notes the seq of the turn's last message, so a reopened session shows
   * its card where the turn ended. Never rejects.
   */
  async sealTurn(): Promise<void> {
    const checkpoint = this.checkpoint;
    const store = this.storage.writable;
    const id = this.sessions.id;
    if (!checkpoint?.current || !store || !id) return;
    try {
      const last = (await store.sessions.transcriptPage(id, { limit: 1 })).messages.at(-1)?.seq;
      if (last !== undefined) await checkpoint.seal(last);
    } catch (err) {
      this.env.log.warn(`checkpoint: ${String(err)}`);
    }
  }

  /** The files the last turn changed; undefined when it changed none. */
  turnChanges(): TurnChanges | undefined {
    const cp = this.checkpoint?.current;
    return cp && cp.files.length ? changesOf(cp) : undefined;
  }

  /** A checkpointed file before turn `turn` (text), and where it is now (absolute path, checked to be inside the workspace), for a diff. */
  async diff(turn: number, path: string): Promise<{ before: string; current: string }> {
    const { checkpoints, root } = this.stored();
    const file = (await checkpoints.load(turn))?.files.find((f) => f.path === path);
    if (!file) throw new HeadroomError('not_found', `No checkpoint of ${path} for turn ${turn}.`);
    return { before: beforeText(file.before), current: (await target(checkpointRoot(root), path)).abs };
  }

  /**
   * Restores turn `turn`'s checkpoint: asks `confirmOverwrite` about files changed since the turn
   * ('keep' leaves them, 'cancel' changes nothing), puts the files back, then rewinds the conversation
   * to before the turn. Refuses a damaged record or one naming a path outside the workspace, before
   * changing anything.
   */
  async restore(turn: number, confirmOverwrite: (paths: string[]) => Promise<OverwriteAnswer>): Promise<RestoreOutcome | undefined> {
    this.sessions.assertIdle('restoring a checkpoint');
    const { store, id, checkpoints, root } = this.stored();
    const own = await checkpoints.load(turn);
    if (!own) throw new HeadroomError('not_found', `There is no stored checkpoint for turn ${turn}.`);
    if (own.restoredAt !== undefined) throw new HeadroomError('invalid_request', `Turn ${turn} was already restored or rewound.`);
    // The later turns' files go back too (the conversation rewinds past them), newest first.
    const later = (await checkpoints.turns()).filter((t) => t > turn);
    const loaded = [own, ...(await Promise.all(later.map((t) => checkpoints.load(t))))];
    const cp = laterTurnsFirst(
      loaded.filter((c) => c !== undefined),
      turn,
    )!;
    const at = checkpointRoot(root);
    const plan = await planRestore(at, cp);
    let skip = new Set<string>();
    if (plan.conflicts.length) {
      const answer = await confirmOverwrite(plan.conflicts);
      if (answer === 'cancel') return undefined;
      if (answer === 'keep') skip = new Set(plan.conflicts);
    }
    // A file edited while the question was open was not part of the answer: it is kept as it is now.
    const now = await planRestore(at, cp);
    for (const [path, hash] of now.seen) if (hash !== plan.seen.get(path)) skip.add(path);
    const restored = await restoreFiles(at, cp, skip);
    // "Work so far" goes back with the files: it must not list a file the restore removed. (A record
    // from before the ledger was kept with checkpoints leaves the ledger as it is.)
    const ledger = parseLedgerState(own.ledgerBefore);
    if (ledger) await store.sessions.setState(id, 'ledger', JSON.stringify(ledger));
    const rewound = await this.rewindTo(store, id, turn);
    await checkpoints.markRestored(turn);
    return { turn, restored, kept: [...skip], notRestorable: plan.notRestorable, ...rewound };
  }

  private stored(): { store: HeadroomStore; id: string; checkpoints: CheckpointStore; root: string } {
    const { store, id } = this.sessions.writable();
    const folder = this.env.folder();
    if (!folder) throw new HeadroomError('invalid_request', 'Open the workspace folder first.');
    return { store, id, checkpoints: new CheckpointStore(store.sessions, id), root: folder.root };
  }

  /**
   * Makes the context as it was before turn `turn` the resume view, and reopens the session on it.
   * Returns the turn's prompt and how many prompts left the conversation with it.
   */
  private async rewindTo(store: HeadroomStore, id: string, turn: number): Promise<Pick<RestoreOutcome, 'prompt' | 'rewoundPrompts'>> {
    const transcript = await store.sessions.transcript(id);
    const first = transcript.find((e) => e.turn >= turn)?.seq;
    if (first === undefined) throw new HeadroomError('not_found', `Turn ${turn} is not in this session's transcript.`);
    const prompts = transcript.filter((e) => e.seq >= first && e.message.role === 'user' && !isHistoryMessage(e.message));
    const opening = prompts[0]?.message;
    const view = await store.sessions.contextView(id, { rollingWindowMs: this.models.contextSettings().rollingWindowMs || undefined });
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
    await this.sessions.open(id);
    return { ...(opening?.role === 'user' ? { prompt: opening } : {}), rewoundPrompts: prompts.length };
  }
}
