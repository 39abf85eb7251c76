/**
 * Which session is current, and its context view: create, open (from the stored view, with its
 * counts, ledger and summary counter), rename, delete, clear, the session list, and the rolling
 * time window applied live. Switching attaches a fresh `AgentSession` with a fresh gate and chain.
 * Pure (no vscode).
 */
import { AgentSession, storePersistence } from '../agent';
import { LedgerRecorder, WorkLedger } from '../agent/ledger';
import { SessionModel } from '../agent/session-model';
import { SpendRecorder } from '../agent/spend-recorder';
import { HeadroomError } from '../common/errors';
import { adoptLegacyHistory, mayHoldLegacyHistory, storedCompaction, withCurrentPins, type StoredCompaction } from '../context/compaction';
import { MODEL_CHOICE_KEY, serializeModelChoice } from '../context/model-choice';
import { selectWindow } from '../context/turns';
import type { Message } from '../providers/types';
import type { SessionSummary, SnapshotInfo } from '../store';
import { recordCompaction } from './compaction-wiring';
import type { SessionCore } from './session-core';
import { storedTranscript, type StoredTranscript } from './stored-transcript';
import { settingsModel } from './model-access';
import { loadSessionState, type SessionRecord } from './store-lifecycle';
import { expectNextRequest, systemSections, turnConfig } from './turn-wiring';

function attach(core: SessionCore, summary: SessionSummary | undefined, messages: Message[], state: SessionRecord): void {
  core.gates.reset();
  core.chain?.discardPrepared();
  core.chain = undefined;
  core.pauseChanges.fire(null);
  core.sessionSub?.dispose();
  core.session?.dispose();
  core.summary = summary;
  const sessionId = summary?.id;
  const store = core.store;
  const writable = store && sessionId && !store.readOnly ? { store, sessionId } : undefined;
  core.model = new SessionModel(
    {
      defaults: () => settingsModel(core.env),
      save: writable ? (c) => writable.store.sessions.setState(writable.sessionId, MODEL_CHOICE_KEY, serializeModelChoice(c)) : undefined,
      onError: (m) => core.warn(m),
    },
    state.choice,
  );
  core.summaryCount = state.summaryCount;
  const recorder = new LedgerRecorder(new WorkLedger(state.ledger), {
    save: writable ? (s) => writable.store.sessions.setState(writable.sessionId, 'ledger', JSON.stringify(s)) : undefined,
    keep: (entry) => core.resultPort().put(entry),
    onError: (m) => core.warn(m),
    onChange: () => core.ledgerChanges.fire(recorder.ledger.toJSON()),
  });
  core.recorder = recorder;
  core.ledgerChanges.fire(recorder.ledger.toJSON());
  const spend = new SpendRecorder({
    seed: summary?.spend,
    model: () => core.models.target().model,
    save: writable ? (s) => writable.store.sessions.setSpend(writable.sessionId, s) : undefined,
    onError: (m) => core.warn(m),
    onChange: (state) => core.spendChanges.fire(state),
  });
  core.spend = spend;
  core.spendChanges.fire(spend.state);
  const session = new AgentSession({
    messages,
    system: () => systemSections(core),
    turnConfig: () => turnConfig(core),
    persistence:
      store && sessionId && !store.readOnly
        ? storePersistence(store.sessions, sessionId, (m) => core.ledger.count(m, core.models.limits().family))
        : undefined,
  });
  core.session = session;
  const sub = session.onDidEvent((e) => {
    recorder.handle(e);
    spend.handle(e);
    if (e.type === 'compaction') recordCompaction(core, e.report);
    core.agentEvents.fire(e);
  });
  core.sessionSub = { dispose: () => sub.dispose() };
  core.fireState();
}

/**
 * The rolling time window, applied live (not only when a session is reopened): messages older than
 * the window leave the context view at a safe cut. The transcript keeps them. Not during a turn.
 */
export function applyRollingWindow(core: SessionCore): void {
  const windowMs = core.models.contextSettings().rollingWindowMs;
  const session = core.session;
  if (!windowMs || !session || session.isRunning) return;
  const selection = selectWindow(session.messages, { windowMs, now: Date.now() });
  if (selection.dropped > 0) {
    core.env.log.info(`rolling window: ${selection.dropped} message(s) older than ${Math.round(windowMs / 60_000)} min left the context`);
    session.replaceMessages(selection.messages);
  }
}

/** Clear: advances the session's clear marker (nothing is deleted); the next request starts empty. */
export async function clearContext(core: SessionCore): Promise<void> {
  core.assertIdle('clearing the context');
  if (core.store && core.summary && !core.store.readOnly) await core.store.sessions.clear(core.summary.id);
  core.chain?.discardPrepared();
  core.session?.replaceMessages([]);
  core.fireState();
}

export async function newSession(core: SessionCore): Promise<void> {
  if (core.session?.isRunning) throw new HeadroomError('invalid_request', 'Stop the running turn before starting a new session.');
  const summary = core.store && !core.store.readOnly ? await core.store.sessions.create() : undefined;
  // A new session starts on the default model (the one last picked) and keeps it from then on.
  attach(core, summary, [], { ledger: undefined, summaryCount: 0, choice: undefined });
  await expectNextRequest(core);
}

/** Opens a stored session; `followSettings` (start-up) gives it the settings' model instead of its own. */
export async function openSession(core: SessionCore, id: string, opts: { followSettings?: boolean } = {}): Promise<void> {
  if (core.session?.isRunning) throw new HeadroomError('invalid_request', 'Stop the running turn before switching sessions.');
  if (!core.store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
  const summary = core.store.sessions.get(id);
  if (!summary) throw new HeadroomError('not_found', `No session ${id}.`);
  const settings = core.models.contextSettings();
  const view = await core.store.sessions.contextView(id, { rollingWindowMs: settings.rollingWindowMs || undefined });
  // The counts stored with each message: the meter is right at once, nothing is recounted. (A
  // family this version does not know only seeds keys that are never looked up.)
  core.ledger.seed(view.counts);
  const state = await loadSessionState(core, id);
  if (opts.followSettings) state.choice = undefined;
  let messages = view.messages;
  if (view.snapshot && mayHoldLegacyHistory(messages)) {
    // Compacted before history messages were marked: tell Headroom's summary from a user's paste.
    const transcript = (await core.store.sessions.transcript(id)).map((e) => e.message);
    messages = adoptLegacyHistory(messages, transcript);
  }
  // Pins added or removed since the view was stored are carried as they are now.
  messages = [
    ...withCurrentPins(
      messages,
      (await core.store.sessions.pins(id)).map((p) => p.text),
    ),
  ];
  attach(core, summary, messages, state);
  await expectNextRequest(core);
}

export async function renameSession(core: SessionCore, id: string, title: string): Promise<void> {
  if (!core.store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
  await core.store.sessions.rename(id, title);
  if (core.summary?.id === id) core.summary = { ...core.summary, title };
  core.fireState();
}

export async function deleteSession(core: SessionCore, id: string): Promise<void> {
  if (!core.store) throw new HeadroomError('not_found', 'Sessions are not stored in this window.');
  if (core.summary?.id === id && core.session?.isRunning)
    throw new HeadroomError('invalid_request', 'Stop the running turn before deleting its session.');
  await core.store.sessions.delete(id);
  if (core.summary?.id === id) {
    const next = core.store.sessions.list()[0];
    if (next) await openSession(core, next.id);
    else await newSession(core);
  }
}

export function listSessions(core: SessionCore): SessionSummary[] {
  return core.store?.sessions.list() ?? (core.summary ? [core.summary] : []);
}

/** Sessions, the current session's snapshots, and whether a compaction can be undone. The caller has opened the store. */
export async function sessionHistory(core: SessionCore): Promise<{
  sessions: SessionSummary[];
  snapshots: SnapshotInfo[];
  currentSessionId: string | null;
  canUndoCompaction: boolean;
}> {
  const id = core.summary?.id;
  const snapshots = core.store && id ? await core.store.sessions.listSnapshots(id) : [];
  // Undo works only while the newest change of the context is a compaction (not after a restore or an undo).
  const canUndoCompaction = core.store && id && !core.store.readOnly ? await core.store.sessions.canUndoCompaction(id) : false;
  return { sessions: listSessions(core), snapshots, currentSessionId: id ?? null, canUndoCompaction };
}

/** The current session's compactions, oldest first, and whether the newest can still be undone. */
export interface CompactionHistory {
  compactions: StoredCompaction[];
  newestUndoable: boolean;
  /** The stored transcript the panel shows instead of the context view (every compaction, not only since the clear). */
  stored?: StoredTranscript;
  /** The session's pins (a receipt's missing item that was pinned says so). */
  pins?: string[];
}

/**
 * The current session's stored compactions since its last clear, with their "what left" views (those
 * recorded before the view was stored come without it), for the cards a reopened session shows.
 */
export async function compactionHistory(core: SessionCore): Promise<CompactionHistory> {
  const store = core.store;
  const id = core.summary?.id;
  if (!store || !id) return { compactions: [], newestUndoable: false };
  // The whole stored transcript is shown, so every compaction is, each where it happened.
  const records = await store.sessions.listCompactions(id);
  const stored = await storedTranscript(store.sessions, id);
  // A compaction from before the last clear is not the context's: it cannot be undone.
  const sinceClear = records.length > 0 && records[0].createdAt > (stored.clear?.clearedAt ?? -Infinity);
  const newestUndoable = sinceClear && !store.readOnly && (await store.sessions.canUndoCompaction(id));
  const pins = (await store.sessions.pins(id)).map((p) => p.text);
  return { compactions: records.reverse().map(storedCompaction), newestUndoable, stored, pins };
}
