/**
 * How a session's compaction chain is built and what its records hold: the chain (it holds the loop
 * breaker and the background summary) wired to the summarizer, the result store, pins, the stored
 * history, the work ledger and rehydration; each compaction it reports becomes a record with what it
 * did to the context and the compacted view as the resume snapshot, with the figures of its report
 * (the whole context, as the live card shows them). The state (the chain, the
 * summary count, the order of writes) is `compactions.ts`'s. Pure (no vscode).
 */
import type { CompactInput } from '../agent/compact-hook';
import type { CompactionReport } from '../agent/events';
import { compactionChange, createCompactionChain, type ChainResult, type CompactionChain } from '../agent/compaction';
import { nativeCompactionFor, storedCompactionView, type StoredCompactionView } from '../context/compaction';
import { rehydrationBlock } from '../agent/ledger';
import { snapshotCounts } from '../agent/store-persistence';
import type { MessageCount } from '../context/message-tokens';
import type { Provider } from '../providers/provider';
import type { CompactionInput, HeadroomStore } from '../store';
import type { ResultPort } from '../tools';
import type { HostEnvironment } from './host-environment';
import type { ModelAccess } from './model-access';
import type { SessionRecords } from './session-records';

/** What the chain of one session is wired to. */
export interface ChainParts {
  readonly env: HostEnvironment;
  readonly models: ModelAccess;
  readonly records: Pick<SessionRecords, 'ledgerBlock' | 'recentlyChanged'>;
  readonly store: HeadroomStore | undefined;
  readonly sessionId: string | undefined;
  readonly results: ResultPort;
  /** Summary passes of the session so far (for the periodic re-summarization). */
  readonly summaryCount: number;
  onSummaryCount(count: number): void;
  /** A pass finished (`model`: the summarizer's). */
  onReport(r: ChainResult, input: CompactInput, model: string): void;
  onPause(reason: string): void;
}

/** A session's compaction chain (one per session: it holds the loop breaker and background work). */
export function sessionChain(parts: ChainParts): CompactionChain {
  const { env, models, store, sessionId } = parts;
  const settings = env.settings.compaction();
  // Read at every pass: a session may switch its model or provider between passes, and the summary
  // follows it (a configured summarizer model with its own, smaller window included).
  const summarizer: Provider = {
    get id() {
      return models.target().provider;
    },
    stream: (req, signal) => {
      const { provider, baseUrl, model } = models.target();
      return models.providerFor(provider, baseUrl, model).stream(req, signal);
    },
  };
  return createCompactionChain({
    summarizer,
    // Read at every pass: the model, its capabilities and the setting may all change between passes.
    nativeCompaction: () =>
      nativeCompactionFor({
        provider: models.target().provider,
        capabilities: models.limits().capabilities,
        allowed: env.settings.compaction().native,
        summarizerIsSessionModel: models.summarizer().model === models.target().model,
      }),
    // Read at every pass: the session's model may change after the chain was built (a model switch).
    get summarizerModel() {
      return models.summarizer().model;
    },
    get summarizerWindow() {
      return models.summarizer().inputLimit;
    },
    results: parts.results,
    keepTurns: settings.keepTurns,
    resummarizeEvery: settings.resummarizeEvery,
    summaryCount: parts.summaryCount,
    onSummaryCount: (n) => parts.onSummaryCount(n),
    ledger: () => parts.records.ledgerBlock(),
    rehydrate: async (budgetTokens) => {
      const folder = env.folder();
      if (!folder) return undefined;
      const workspace = folder.workspace();
      return rehydrationBlock({ paths: parts.records.recentlyChanged(), read: (p) => workspace.readFile(p), budgetTokens });
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
    onReport: (r, input) => parts.onReport(r, input, models.summarizer().model),
    onPause: (p) => {
      env.log.warn(`automatic compaction paused: ${p.reason}`);
      parts.onPause(p.reason);
    },
  });
}

/**
 * The record a compaction is stored as: what it did to the context (the "what left" view and the
 * receipt a reopened session shows) and the compacted view as the resume snapshot, each message with
 * its worker count (`counts`, parallel to the view) so a reopened session's first meter is exact. Its
 * figures are `report`'s (the whole context before and after, as the live card shows them), so a
 * reopened card says the same as the live one.
 */
export function compactionRecord(
  r: ChainResult,
  input: CompactInput,
  model: string,
  report: CompactionReport,
  counts: readonly MessageCount[],
): CompactionInput {
  return {
    beforeTokens: report.beforeTokens,
    afterTokens: report.afterTokens,
    beforeMessages: r.beforeMessages,
    afterMessages: r.afterMessages,
    strategies: r.strategies,
    summary: r.summary,
    durationMs: report.durationMs,
    report: whatLeft(r, input, model),
    snapshot: { messages: r.messages, counts: snapshotCounts(r.messages, counts), tokens: r.afterTokens },
  };
}

/** The view of what the pass did, as stored with its record (undefined if it cannot be assembled). */
function whatLeft(r: ChainResult, input: CompactInput, model: string): StoredCompactionView | undefined {
  try {
    return storedCompactionView(compactionChange(input.messages, r), { trigger: r.trigger, cost: r.cost, model });
  } catch {
    return undefined;
  }
}
