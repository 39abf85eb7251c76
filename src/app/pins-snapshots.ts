/**
 * What a person keeps of the current session: pins (kept verbatim through every compaction) and named
 * snapshots of the context view (saved with a summary, restorable). Changing them needs a writable
 * store. Pure (no vscode).
 */
import { snapshotSummary } from '../agent/compaction';
import { HeadroomError } from '../common/errors';
import { withCurrentPins } from '../context/compaction';
import { DEFAULT_PROVIDER } from '../common/provider-catalogue';
import { restrictedModeRefusal } from '../protocol/restricted-mode';
import { createProvider } from '../providers/create-provider';
import type { HostEnvironment } from './host-environment';
import type { ModelAccess } from './model-access';
import type { Sessions } from './sessions';
import type { SessionStorage } from './store-lifecycle';

/** A text kept verbatim through every compaction of the session. */
export interface PinInfo {
  readonly id: string;
  readonly text: string;
  readonly createdAt: number;
}

export class PinsAndSnapshots {
  constructor(
    private readonly env: HostEnvironment,
    private readonly storage: Pick<SessionStorage, 'store'>,
    private readonly sessions: Pick<Sessions, 'id' | 'live' | 'messages' | 'writable' | 'assertIdle' | 'open'>,
    private readonly models: Pick<ModelAccess, 'releaseKey' | 'target' | 'providerFor' | 'summarizer'>,
    private readonly ready: () => Promise<void>,
  ) {}

  /** Pins a text: it is kept verbatim through every compaction of this session. Rejects empty or over-long text. */
  async pin(text: string): Promise<void> {
    const { store, id } = this.sessions.writable();
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
    await this.intoView();
  }

  /** The current session's pins; none without a store. */
  async pins(): Promise<PinInfo[]> {
    await this.ready();
    const store = this.storage.store;
    const id = this.sessions.id;
    return store && id ? store.sessions.pins(id) : [];
  }

  async unpin(pinId: string): Promise<void> {
    const { store, id } = this.sessions.writable();
    await store.sessions.unpin(id, pinId);
    await this.intoView();
  }

  /**
   * The current view's history message carries the session's pins as they are now, so a pin reaches the
   * next request at once (a compaction puts them there too). Not while a turn runs: its view is the
   * turn's own; the next compaction or reopen carries them.
   */
  private async intoView(): Promise<void> {
    const store = this.storage.store;
    const id = this.sessions.id;
    const live = this.sessions.live;
    if (!store || !id || !live || live.isRunning) return;
    const pinned = (await store.sessions.pins(id)).map((p) => p.text);
    const view = withCurrentPins(live.messages, pinned);
    if (view !== live.messages) live.replaceMessages([...view]);
  }

  /** Saves the current context view as a named snapshot (history entry); the view is unchanged. */
  async saveSnapshot(name?: string): Promise<void> {
    const { store, id } = this.sessions.writable();
    const { env, models } = this;
    const messages = [...this.sessions.messages];
    // Restricted Mode sends nothing: a keyless Anthropic adapter fails locally, so the snapshot is
    // saved with "(summary unavailable)". Otherwise the key goes only where it was released for.
    const refusal = restrictedModeRefusal('compact', env.trusted());
    if (!refusal) await models.releaseKey();
    const { provider, baseUrl, model } = models.target();
    const summary = await snapshotSummary(messages, {
      provider: refusal
        ? createProvider({ provider: DEFAULT_PROVIDER, missingKeyMessage: refusal })
        : models.providerFor(provider, baseUrl, model),
      model: models.summarizer().model,
    });
    await store.sessions.saveSnapshot(id, { kind: 'named', messages, description: name?.trim() || undefined, summary });
  }

  async restoreSnapshot(snapshotId: string): Promise<void> {
    const { store, id } = this.sessions.writable();
    this.sessions.assertIdle('restoring a snapshot');
    await store.sessions.restoreSnapshot(id, snapshotId);
    await this.sessions.open(id);
  }
}
