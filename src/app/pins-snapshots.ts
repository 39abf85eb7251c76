/**
 * What a person keeps of the current session: pins (kept verbatim through every compaction), named
 * snapshots of the context view (saved with a summary, restorable), and undo of the last compaction.
 * All of them need a writable store. Pure (no vscode).
 */
import { snapshotSummary } from '../agent/compaction';
import { HeadroomError } from '../common/errors';
import { withCurrentPins } from '../context/compaction';
import { DEFAULT_PROVIDER } from '../common/provider-catalogue';
import { restrictedModeRefusal } from '../protocol/restricted-mode';
import { createProvider } from '../providers/create-provider';
import type { SessionCore } from './session-core';
import { openSession } from './session-switching';

/** Pins a text: it is kept verbatim through every compaction of this session. */
export async function pin(core: SessionCore, text: string): Promise<void> {
  const { store, id } = core.writable();
  const t = text.trim();
  if (!t) throw new HeadroomError('invalid_request', 'A pin needs some text.');
  if (t.length > 4000)
    throw new HeadroomError(
      'invalid_request',
      `A pin is kept verbatim in every request, so it is limited to 4,000 characters (this one has ${t.length}).`,
    );
  // Pinned already (a receipt's Pin clicked twice, or on a reopened card): nothing to add.
  if ((await store.sessions.pins(id)).some((p) => p.text === t)) return;
  await store.sessions.pin(id, t);
  await pinsIntoView(core);
}

/**
 * The current view's history message carries the session's pins as they are now, so a pin reaches the
 * next request at once (a compaction puts them there too). Not while a turn runs: its view is the
 * turn's own; the next compaction or reopen carries them.
 */
export async function pinsIntoView(core: SessionCore): Promise<void> {
  const session = core.session;
  if (!core.store || !core.summary || !session || session.isRunning) return;
  const pinned = (await core.store.sessions.pins(core.summary.id)).map((p) => p.text);
  const view = withCurrentPins(session.messages, pinned);
  if (view !== session.messages) session.replaceMessages([...view]);
}

/** The current session's pins; none without a store. The caller has opened the store. */
export async function pins(core: SessionCore): Promise<Array<{ id: string; text: string; createdAt: number }>> {
  return core.store && core.summary ? core.store.sessions.pins(core.summary.id) : [];
}

export async function unpin(core: SessionCore, pinId: string): Promise<void> {
  const { store, id } = core.writable();
  await store.sessions.unpin(id, pinId);
  await pinsIntoView(core);
}

/** Saves the current context view as a named snapshot (history entry); the view is unchanged. */
export async function saveSnapshot(core: SessionCore, name?: string): Promise<void> {
  const { store, id } = core.writable();
  const messages = [...core.messages];
  // Restricted Mode sends nothing: a keyless Anthropic adapter fails locally, so the snapshot is
  // saved with "(summary unavailable)". Otherwise the key goes only where it was released for.
  const refusal = restrictedModeRefusal('compact', core.env.trusted());
  if (!refusal) await core.models.releaseKey();
  const { provider, baseUrl, model } = core.models.target();
  const summary = await snapshotSummary(messages, {
    provider: refusal
      ? createProvider({ provider: DEFAULT_PROVIDER, missingKeyMessage: refusal })
      : core.models.providerFor(provider, baseUrl, model),
    model: core.models.summarizer().model,
  });
  await store.sessions.saveSnapshot(id, { kind: 'named', messages, description: name?.trim() || undefined, summary });
}

export async function restoreSnapshot(core: SessionCore, snapshotId: string): Promise<void> {
  const { store, id } = core.writable();
  core.assertIdle('restoring a snapshot');
  await store.sessions.restoreSnapshot(id, snapshotId);
  await openSession(core, id);
}

export async function undoCompaction(core: SessionCore): Promise<void> {
  const { store, id } = core.writable();
  core.assertIdle('undoing a compaction');
  await store.sessions.undoLastCompaction(id);
  await openSession(core, id);
}
