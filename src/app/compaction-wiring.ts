/**
 * The current session's compaction chain and its persistence: one chain per session (it holds the
 * loop breaker and the background summary), wired to the summarizer, the result store, pins, the
 * stored history, the work ledger and rehydration; each compaction it reports is recorded in order
 * (record + the compacted view as the resume snapshot) once its report is known. Pure (no vscode).
 */
import type { CompactInput } from '../agent/compact-hook';
import type { CompactionReport } from '../agent/events';
import { createCompactionChain, type ChainResult, type CompactionChain } from '../agent/compaction';
import { storedCompactionView, type StoredCompactionView } from '../context/compaction';
import { rehydrationBlock } from '../agent/ledger';
import { errorMessage } from '../common/errors';
import type { Provider } from '../providers/provider';
import type { SessionCore } from './session-core';

/** The session's compaction chain (one per session: it holds the loop breaker and background work). */
export function compactionChain(core: SessionCore): CompactionChain {
  if (core.chain) return core.chain;
  const store = core.store;
  const sessionId = core.summary?.id;
  const settings = core.env.settings.compaction();
  // Read at every pass: a session may switch its model or provider between passes, and the summary
  // follows it (a configured summarizer model with its own, smaller window included).
  const summarizer: Provider = {
    get id() {
      return core.models.target().provider;
    },
    stream: (req, signal) => {
      const { provider, baseUrl, model } = core.models.target();
      return core.models.providerFor(provider, baseUrl, model).stream(req, signal);
    },
  };
  core.chain = createCompactionChain({
    summarizer,
    get summarizerModel() {
      return core.models.summarizer().model;
    },
    get summarizerWindow() {
      return core.models.summarizer().inputLimit;
    },
    results: core.resultPort(),
    keepTurns: settings.keepTurns,
    resummarizeEvery: settings.resummarizeEvery,
    summaryCount: core.summaryCount,
    onSummaryCount: (n) => {
      core.summaryCount = n;
      if (store && sessionId && !store.readOnly) {
        store.sessions
          .setState(sessionId, 'summary_count', String(n))
          .catch((e) => core.env.log.warn(`summary counter not saved: ${errorMessage(e)}`));
      }
    },
    ledger: () => core.ledgerBlock(),
    rehydrate: async (budgetTokens) => {
      const folder = core.env.folder();
      if (!folder) return undefined;
      const workspace = folder.workspace();
      return rehydrationBlock({ paths: core.recorder.ledger.recentlyChanged(), read: (p) => workspace.readFile(p), budgetTokens });
    },
    pins: async () => (store && sessionId ? (await store.sessions.pins(sessionId)).map((p) => p.text) : []),
    history:
      store && sessionId
        ? async () => {
            const loaded = await store.sessions.load(sessionId);
            const from = loaded.marker ? loaded.marker.afterSeq + 1 : undefined;
            return (await store.sessions.transcript(sessionId, { fromSeq: from })).map((e) => e.message);
          }
        : undefined,
    // Recorded once its report (the whole context, as the live card shows it) is known.
    onReport: (r, input) => {
      core.pendingCompaction = { result: r, input, model: core.models.summarizer().model };
      logCompaction(core, r);
    },
    onPause: (p) => {
      core.env.log.warn(`automatic compaction paused: ${p.reason}`);
      core.pauseChanges.fire(p.reason);
    },
  });
  return core.chain;
}

function logCompaction(core: SessionCore, r: ChainResult): void {
  core.env.log.info(
    `compaction (${r.trigger}): ${r.beforeTokens} → ${r.afterTokens} message tokens, ${r.strategies.join(' + ')}, ${r.durationMs} ms${r.notes.length ? `; ${r.notes.join('; ')}` : ''}`,
  );
}

/**
 * Persists the pass the chain just reported, with `report`'s figures (the whole context before and
 * after, as the live card shows them, so a reopened card says the same), in order: the record with
 * what it did to the context (the "what left" view and the receipt a reopened session shows) and the
 * compacted view as the resume snapshot. Called with the gate's report (the turn's `compaction` event)
 * or manual compaction's. Never throws.
 */
export function recordCompaction(core: SessionCore, report: CompactionReport): void {
  const pending = core.pendingCompaction;
  core.pendingCompaction = undefined;
  const store = core.store;
  const id = core.summary?.id;
  // A cancelled pass is discarded by the runner: nothing of it is kept.
  if (!pending || !store || !id || store.readOnly || core.compactions.aborting) return;
  const { result: r, input, model } = pending;
  core.persisting = core.persisting.then(() =>
    store.sessions
      .recordCompaction(id, {
        beforeTokens: report.beforeTokens,
        afterTokens: report.afterTokens,
        beforeMessages: r.beforeMessages,
        afterMessages: r.afterMessages,
        strategies: r.strategies,
        summary: r.summary,
        durationMs: report.durationMs,
        report: whatLeft(r, input, model),
        snapshot: { messages: r.messages, tokens: r.afterTokens },
      })
      .then(
        () => undefined,
        (err) => core.warn(`The compaction could not be saved: ${errorMessage(err)}`),
      ),
  );
}

/** The view of what the pass did, as stored with its record (undefined if it cannot be assembled). */
function whatLeft(r: ChainResult, input: CompactInput, model: string): StoredCompactionView | undefined {
  try {
    const change = {
      before: input.messages,
      after: r.messages,
      strategies: r.strategies,
      storedRefIds: r.clearedRefIds,
      ...(r.summary !== undefined ? { summary: r.summary } : {}),
      ...(r.receipt ? { receipt: r.receipt } : {}),
    };
    return storedCompactionView(change, { trigger: r.trigger, cost: r.cost, model });
  } catch {
    return undefined;
  }
}
