/**
 * The session store over the service's lifetime: opened once (writable, read-only when another
 * window holds it, or absent: memory only, each with a note for the panel), the calibration factors
 * loaded from and saved to it, the per-session state (work ledger, summary counter, model) read
 * back, and where offloaded results go. Its state changes only here. Pure (no vscode).
 */
import * as path from 'node:path';
import { parseLedgerState, type LedgerState } from '../agent/ledger';
import { Disposable } from '../common/disposable';
import { Emitter } from '../common/emitter';
import { errorMessage, HeadroomError } from '../common/errors';
import { Calibration } from '../context/calibration';
import { MODEL_CHOICE_KEY, parseModelChoice, type ModelChoice } from '../context/model-choice';
import { openStore, type HeadroomStore, type ResultMeta } from '../store';
import type { ResultPort } from '../tools';
import { createMemoryResultPort } from '../tools/memory-results';
import type { HostEnvironment } from './host-environment';

/**
 * How long a window waits for another extension host on this machine to release the store before it
 * works read-only: a reload starts the new host while the old one is still shutting down (it flushes
 * and releases within a second or two). A second window that really shares the workspace waits this
 * long once, at its first use of sessions.
 */
const LOCK_WAIT_MS = 6_000;

/** The panel's line for a read-only store (its reason is a clause: "another VS Code window …"); undefined when writable. */
function readOnlyNote(store: HeadroomStore): string | undefined {
  if (!store.readOnly) return undefined;
  return `Read-only: ${store.readOnlyReason ?? "another window holds this workspace's sessions."}`;
}

/** What is stored with a session besides its messages. */
export interface SessionRecord {
  ledger: LedgerState | undefined;
  summaryCount: number;
  /** The session's model; undefined: the settings' default. */
  choice: ModelChoice | undefined;
}

export class SessionStorage extends Disposable {
  private opened: HeadroomStore | undefined;
  private why: string | undefined;
  private factors = new Calibration();
  private memoryResults: ResultPort | undefined;
  private readonly accessChanges = this._register(new Emitter<void>());
  /** Fires when this window stops being able to save (it handed the store to a newer window). */
  readonly onDidChangeAccess = this.accessChanges.event;

  constructor(private readonly env: HostEnvironment) {
    super();
  }

  /** The store; undefined while sessions are kept in memory. */
  get store(): HeadroomStore | undefined {
    return this.opened;
  }

  /** Why sessions are read-only or in memory (for the panel); undefined when they are stored. */
  get note(): string | undefined {
    return this.why;
  }

  /** The calibration factors per model (loaded from the store; the gates observe into them). */
  get calibration(): Calibration {
    return this.factors;
  }

  /** The store when this window may write it. */
  get writable(): HeadroomStore | undefined {
    return this.opened && !this.opened.readOnly ? this.opened : undefined;
  }

  /**
   * Opens the store under the environment's storage root; a failure keeps sessions in memory (with a
   * warning). While `idle()` holds, a newer window on this machine that asks for the store gets it (a
   * browser tab closed on code-server keeps its extension host, and the store, for hours).
   */
  async open(idle: () => boolean = () => false): Promise<void> {
    const storageRoot = this.env.storageRoot;
    if (!storageRoot) {
      this.why = 'No folder is open, so sessions are kept in memory only.';
      return;
    }
    try {
      const store = (this.opened = await openStore({
        root: path.join(storageRoot, 'headroom'),
        wasmPath: this.env.assets.wasmPath,
        waitMs: LOCK_WAIT_MS,
        canHandOff: idle,
      }));
      for (const p of store.problems) this.env.warn(p.message);
      this._register({ dispose: () => void store.close() });
      this._register(
        store.onDidReportProblem((p) => {
          this.env.warn(p.message);
          const why = readOnlyNote(store);
          if (why && this.why !== why) {
            this.why = why;
            this.accessChanges.fire();
          }
        }),
      );
      this.why = readOnlyNote(store);
      // Persisted factors (the store keeps no error band; start it at 0 and let new samples widen it).
      this.factors = new Calibration(
        store.calibration.all().map((c) => ({ model: c.model, factor: c.factor, samples: c.samples, error: 0 })),
      );
    } catch (err) {
      this.why = `Sessions are kept in memory only: ${errorMessage(err)}`;
      this.env.warn(this.why);
    }
  }

  async saveCalibration(): Promise<void> {
    const store = this.writable;
    if (!store) return;
    for (const c of this.factors.toJSON()) {
      await store.calibration
        .set(c.model, c.factor, c.samples)
        .catch((e) => this.env.log.warn(`calibration not saved: ${errorMessage(e)}`));
    }
  }

  /** The ledger, summary counter and model stored with a session (a damaged record starts afresh, with a warning). */
  async record(id: string): Promise<SessionRecord> {
    const store = this.opened!;
    const raw = await store.sessions.getState(id, 'ledger').catch(() => undefined);
    const ledger = parseLedgerState(raw);
    if (raw && !ledger) this.env.warn('The work ledger of this session could not be read; a new one is started.');
    const count = Number(await store.sessions.getState(id, 'summary_count').catch(() => undefined));
    // A session stored before models were remembered per session follows the settings.
    const choice = parseModelChoice(await store.sessions.getState(id, MODEL_CHOICE_KEY).catch(() => undefined));
    return { ledger, summaryCount: Number.isInteger(count) && count > 0 ? count : 0, choice };
  }

  /** Where offloaded and cleared tool output goes: the session's result store, or memory without one. */
  resultPort(sessionId: string | undefined): ResultPort {
    const store = this.writable;
    if (!store || !sessionId) return (this.memoryResults ??= createMemoryResultPort());
    return store.results.port(sessionId);
  }

  /** A session's stored (offloaded) results, newest first; empty without a store. */
  storedResults(sessionId: string | undefined): ResultMeta[] {
    if (!this.opened || !sessionId) return [];
    try {
      return this.opened.results.list(sessionId).reverse();
    } catch {
      return [];
    }
  }

  /** The full text of an offloaded tool result (from the store, or memory without one). */
  async readResult(refId: string): Promise<string> {
    if (this.opened) return this.opened.results.read(refId);
    const page = await this.memoryResults?.page(refId, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
    if (!page) throw new HeadroomError('not_found', `No stored result ${refId}.`);
    return page.text;
  }

  async flush(): Promise<void> {
    await this.opened?.flush();
  }
}
