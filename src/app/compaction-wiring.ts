/**
 * The current session's compaction chain and its persistence: one chain per session (it holds the
 * loop breaker and the background summary), wired to the summarizer, the result store, pins, the
 * stored history, the work ledger and rehydration; each compaction it reports is recorded in order
 * (record + the compacted view as the resume snapshot). Pure (no vscode).
 */
import type { CompactInput } from '../agent/compact-hook';
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
    onReport: (r, input) => recordCompaction(core, r, input, core.models.summarizer().model),
    onPause: (p) => {
      core.env.log.warn(`automatic compaction paused: ${p.reason}`);
      core.pauseChanges.fire(p.reason);
    },
  });
  return core.chain;
}

/**
 * Persists a compaction, in order: the record with what it did to the context (the "what left" view a
 * reopened session shows) and the compacted view as the resume snapshot.
 */
function recordCompaction(core: SessionCore, r: ChainResult, input: CompactInput, model: string): void {
  const store = core.store;
  const id = core.summary?.id;
  core.env.log.info(
    `compaction (${r.trigger}): ${r.beforeTokens} → ${r.afterTokens} message tokens, ${r.strategies.join(' + ')}, ${r.durationMs} ms${r.notes.length ? `; ${r.notes.join('; ')}` : ''}`,
  );
  // A cancelled pass is discarded by the runner: nothing of it is kept.
  if (!store || !id || store.readOnly || core.compactions.aborting) return;
  core.persisting = core.persisting.then(() =>
    store.sessions
      .recordCompaction(id, {
        beforeTokens: r.beforeTokens,
        afterTokens: r.afterTokens,
        beforeMessages: r.beforeMessages,
        afterMessages: r.afterMessages,
        strategies: r.strategies,
        summary: r.summary,
        durationMs: r.durationMs,
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
