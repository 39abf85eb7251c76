/**
 * The running chat, without the editor: the owners of a session's parts, composed and exposed. The
 * panel, the commands and the tests call each owner directly; this file only builds them, tells them
 * about each other through narrow interfaces, and opens the store and the latest session once. All
 * of it reaches the editor through the host-environment port (`host-environment.ts`). Pure (no vscode).
 *
 * The owners, one noun each, each the only one to change its state:
 * - `storage` (`store-lifecycle.ts`): the store, its note, calibration, stored results.
 * - `sessions` (`sessions.ts`): which session is current and its live conversation.
 * - `records` (`session-records.ts`): the work ledger and the spend of the current session.
 * - `models` (`model-access.ts`): the session's model, the released key, limits, settings.
 * - `compactions` (`compactions.ts`): chain, runner, manual compaction, undo, stored compactions.
 * - `checkpoints` (`checkpoint-actions.ts`): each turn's checkpoint, diff, restore + rewind.
 * - `pins` (`pins-snapshots.ts`): pins and named snapshots.
 * - `search` (`session-search.ts`): the whole history and stored results, read.
 * - `searchAll` (`workspace-search.ts`): Search History… over every session, for the person.
 * - `turns` (`turns.ts`): prompts, edit-and-resend, the gate and the meter, model switch, turn wiring.
 */
import type { AgentEvent } from '../agent';
import { refreshOnExactCounts } from '../agent/exact-count-refresh';
import { holdMeterInTurns } from '../agent/meter-floor';
import { Disposable } from '../common/disposable';
import { Emitter, type Event } from '../common/emitter';
import { errorMessage } from '../common/errors';
import { TokenLedger } from '../context/token-ledger';
import { TokenWorkerClient } from '../context/token-worker-client';
import { Checkpoints } from './checkpoint-actions';
import { Compactions } from './compactions';
import type { HostEnvironment } from './host-environment';
import { ModelAccess } from './model-access';
import { PinsAndSnapshots } from './pins-snapshots';
import { SessionRecords } from './session-records';
import { SessionSearch } from './session-search';
import { WorkspaceSearch } from './workspace-search';
import { Sessions } from './sessions';
import { SessionStorage } from './store-lifecycle';
import { Turns } from './turns';

export type { SessionState } from './sessions';

export class SessionService extends Disposable {
  readonly storage: SessionStorage;
  readonly records: SessionRecords;
  readonly models: ModelAccess;
  readonly sessions: Sessions;
  readonly search: SessionSearch;
  /** Search History… over every session of the workspace (the person's; the model searches its own session). */
  readonly searchAll: WorkspaceSearch;
  readonly compactions: Compactions;
  readonly checkpoints: Checkpoints;
  readonly pins: PinsAndSnapshots;
  readonly turns: Turns;
  private readonly worker: TokenWorkerClient;
  private readonly events = this._register(new Emitter<AgentEvent>());
  /** The meter's figure never goes down during a turn but by a compaction or a clear (`meter-floor.ts`). */
  private readonly meter = this._register(holdMeterInTurns(this.events.event));
  /** Every event of the current session's turns, and the progress of every compaction pass. */
  readonly onDidEvent: Event<AgentEvent> = this.meter.event;
  private opened: Promise<void> | undefined;

  constructor(env: HostEnvironment) {
    super();
    this.worker = this._register(
      new TokenWorkerClient({
        workerPath: env.assets.tokenWorkerPath,
        onError: (e) => env.log.warn(`tokenizer worker: ${errorMessage(e)}; using byte estimates`),
      }),
    );
    const ledger = new TokenLedger(this.worker);
    const report = (e: AgentEvent) => this.events.fire(e);
    const ready = () => this.init();
    const storage = (this.storage = this._register(new SessionStorage(env)));
    const records = (this.records = this._register(new SessionRecords()));
    const models = (this.models = new ModelAccess(env));
    // The owners built below are reached through these hooks only when a session is switched or a turn starts.
    const sessions = (this.sessions = this._register(
      new Sessions({
        env,
        storage,
        records,
        models,
        ledger,
        report,
        ready,
        hooks: {
          leave: () => (this.turns.leave(), this.compactions.leave()),
          enter: (record) => this.compactions.enter(record.summaryCount),
          expectNextRequest: () => this.turns.expectNextRequest(),
          discardPrepared: () => this.compactions.discardPrepared(),
          compacting: () => this.compactions.running,
          compacted: (report) => this.compactions.recordReport(report),
          turn: { turnConfig: (resumed) => this.turns.begin(resumed), system: () => this.turns.system() },
        },
      }),
    ));
    const search = (this.search = new SessionSearch(storage, sessions, ready));
    this.searchAll = new WorkspaceSearch(storage, sessions, search, ready);
    const compactions = (this.compactions = this._register(
      new Compactions({ env, storage, sessions, records, models, ledger, report, ready, gate: (limits) => this.turns.gate(limits) }),
    ));
    const checkpoints = (this.checkpoints = new Checkpoints(env, sessions, storage, models, () => records.ledger()));
    this.pins = new PinsAndSnapshots(env, storage, sessions, models, ready);
    this.turns = new Turns({
      env,
      storage,
      sessions,
      records,
      models,
      compactions,
      checkpoints,
      search,
      ledger,
      ready,
      report,
      meter: this.meter.floor,
    });
    // A model the provider says it does not know: its list is read again before the next request.
    this._register(this.events.event((e) => models.observe(e)));
    // A turn's end settles what the meter measures with (the response's usage calibrates, the floor lets
    // go): the figure is measured again once, so the panel does not keep the one from before it settled.
    let settle: ReturnType<typeof setImmediate> | undefined;
    this._register(
      this.events.event((e) => {
        if (e.type !== 'turn_end') return;
        settle ??= setImmediate(() => {
          settle = undefined;
          if (sessions.live) this.events.fire({ type: 'context_usage', usage: this.turns.measure() });
        });
      }),
    );
    this._register({ dispose: () => settle && clearImmediate(settle) });
    // The exact count replaces the estimate in the meter as soon as it arrives (the gate reads the ledger anyway).
    this._register(
      refreshOnExactCounts(
        ledger.onDidCount,
        () => (sessions.live ? this.turns.measure() : undefined),
        (usage) => this.events.fire({ type: 'context_usage', usage }),
      ),
    );
  }

  /** Opens the store and the latest session (or a new one). Safe to call repeatedly. */
  init(): Promise<void> {
    return (this.opened ??= this.open());
  }

  private async open(): Promise<void> {
    this.worker.start();
    // Handed to a newer window only between turns and compactions; the panel then says it is read-only.
    await this.storage.open(() => !this.sessions.state().running && !this.compactions.running);
    this._register(this.storage.onDidChangeAccess(() => this.sessions.changed()));
    const latest = this.storage.store?.sessions.list()[0];
    // Resumed at start-up, the latest session takes the settings' model: they are the last model picked,
    // or what someone set while VS Code was closed. Sessions opened later bring their own model back.
    if (latest) await this.sessions.open(latest.id, { followSettings: true });
    else await this.sessions.create();
  }
}
