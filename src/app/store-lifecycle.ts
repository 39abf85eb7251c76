/**
 * The session store over the service's lifetime: opened once (writable, read-only when another
 * window holds it, or absent: memory only, each with a note for the panel), the calibration factors
 * loaded from and saved to it, the per-session state (work ledger, summary counter) read back.
 * Pure (no vscode).
 */
import * as path from 'node:path';
import { parseLedgerState, type LedgerState } from '../agent/ledger';
import { errorMessage } from '../common/errors';
import { Calibration } from '../context/calibration';
import { MODEL_CHOICE_KEY, parseModelChoice, type ModelChoice } from '../context/model-choice';
import { openStore } from '../store';
import type { SessionCore } from './session-core';

/** Opens the store under the environment's storage root; a failure keeps sessions in memory (with a warning). */
export async function openSessionStore(core: SessionCore): Promise<void> {
  const storageRoot = core.env.storageRoot;
  if (storageRoot) {
    try {
      core.store = await openStore({
        root: path.join(storageRoot, 'headroom'),
        wasmPath: core.env.assets.wasmPath,
      });
      for (const p of core.store.problems) core.warn(p.message);
      core.own({ dispose: () => void core.store?.close() });
      core.own(core.store.onDidReportProblem((p) => core.warn(p.message)));
      if (core.store.readOnly) core.storeNote = core.store.readOnlyReason ?? "Another window holds this workspace's sessions: read-only.";
      // Persisted factors (the store keeps no error band; start it at 0 and let new samples widen it).
      core.calibration = new Calibration(
        core.store.calibration.all().map((c) => ({ model: c.model, factor: c.factor, samples: c.samples, error: 0 })),
      );
    } catch (err) {
      core.storeNote = `Sessions are kept in memory only: ${errorMessage(err)}`;
      core.warn(core.storeNote);
    }
  } else {
    core.storeNote = 'No folder is open, so sessions are kept in memory only.';
  }
}

export async function saveCalibration(core: SessionCore): Promise<void> {
  if (!core.store || core.store.readOnly) return;
  for (const c of core.calibration.toJSON()) {
    await core.store.calibration
      .set(c.model, c.factor, c.samples)
      .catch((e) => core.env.log.warn(`calibration not saved: ${errorMessage(e)}`));
  }
}

/** What is stored with a session besides its messages. */
export interface SessionRecord {
  ledger: LedgerState | undefined;
  summaryCount: number;
  /** The session's model; undefined: the settings' default. */
  choice: ModelChoice | undefined;
}

/** The ledger, summary counter and model stored with a session (a damaged record starts afresh, with a warning). */
export async function loadSessionState(core: SessionCore, id: string): Promise<SessionRecord> {
  const store = core.store!;
  const raw = await store.sessions.getState(id, 'ledger').catch(() => undefined);
  const ledger = parseLedgerState(raw);
  if (raw && !ledger) core.warn('The work ledger of this session could not be read; a new one is started.');
  const count = Number(await store.sessions.getState(id, 'summary_count').catch(() => undefined));
  // A session stored before models were remembered per session follows the settings.
  const choice = parseModelChoice(await store.sessions.getState(id, MODEL_CHOICE_KEY).catch(() => undefined));
  return { ledger, summaryCount: Number.isInteger(count) && count > 0 ? count : 0, choice };
}
