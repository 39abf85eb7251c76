/**
 * The context guard (reference 001): a projection before every model request and before
 * admitting every tool result. Pure functions; never throw.
 *
 * Invariants: the buffer is always subtracted and the output always reserved (both are inside
 * `ModelLimits.effectiveWindow`); a projection at or over the block threshold is `block` (or `final`)
 * in every case, with no exception: when the tool schemas are what pushes it there (`schemaOnly`), the
 * caller clears old results or defers tools first, but the request is never sent over the margin (an
 * earlier exception let the schemas use half the buffer and sent requests at 114 % of the window once
 * dense text was under-counted); once compaction was attempted and the projection is still blocked,
 * the status is `final` (forced final turn, tools restricted) — decided before the next request is sent.
 */
import type { BudgetComponents } from './budget';
import type { ModelLimits } from './models';
import { statusAt, type ThresholdStatus } from './compaction/context-status';
import { contextPercent, contextShare } from './context-share';
import { DEFAULT_THRESHOLDS, type Thresholds } from './settings';
import { modelNumber } from '../common/model-numbers';

/** `ok` → send; `note` → send with the awareness note (≥ background: also prepare a summary);
 * `compact` → compact before sending; `block` → compaction required, do not send as is;
 * `final` → compaction did not help: force a final turn with tools restricted. */
export type GuardStatus = ThresholdStatus | 'final';

/** The counters of reference 001. All in tokens; negative or non-finite values count as 0. */
export interface PreflightRequest {
  /** Tokens committed in the conversation (as of the last completed request). */
  committed: number;
  /** Tokens pending commit (e.g. seed conversation of this turn). */
  pending: number;
  /** Tokens added this turn (assistant messages, tool results). */
  newTokens: number;
  /** Tool schema tokens (active definitions + deferred stubs). */
  schema: number;
  /** True when compaction already ran for this request; a still-blocked projection then becomes `final`. */
  compactionAttempted?: boolean;
  /** Component breakdown, only used for the debug trace. */
  components?: Partial<BudgetComponents>;
}

export interface Projection {
  model: string;
  committed: number;
  pending: number;
  newTokens: number;
  schema: number;
  /** committed + pending + newTokens + schema */
  total: number;
  /** total − schema */
  base: number;
  /** The effective window the projection is compared with. */
  limit: number;
  contextWindow: number;
  maxOutput: number;
  buffer: number;
  /** total / limit */
  ratio: number;
}

export interface PreflightResult {
  status: GuardStatus;
  projection: Projection;
  /** True from the background threshold on: a summary should be prepared in the background. */
  prepareSummary: boolean;
  /** Only the tool schemas push the projection over the block threshold; the conversation itself fits. */
  schemaOnly: boolean;
  /** Human-readable reason (for the log and the panel). */
  reason: string;
}

export interface ToolResultSize {
  bytes: number;
  tokens: number;
}

export interface AdmitResult {
  decision: 'inline' | 'offload';
  reason: 'fits' | 'over_offload_threshold' | 'would_reach_compact';
  /** The projection's total if the result were inlined. */
  projectedTotal: number;
}

/** One guard evaluation as a structured event for the debug log. */
export interface GuardTrace {
  kind: 'preflight' | 'admit';
  at: number;
  model: string;
  status: GuardStatus | AdmitResult['decision'];
  reason: string;
  projection: Projection;
  limit: number;
  thresholds: Thresholds;
  components?: Partial<BudgetComponents>;
  result?: ToolResultSize;
}

export interface GuardOptions {
  thresholds?: Thresholds;
  /** Tool results larger than this are offloaded (default 4096). */
  offloadThresholdBytes?: number;
  /** Receives every evaluation when `headroom.debug` is on. Exceptions from it are swallowed. */
  onTrace?: (trace: GuardTrace) => void;
  now?: () => number;
}

const n = (v: number | undefined): number => (v !== undefined && Number.isFinite(v) && v > 0 ? v : 0);
/** A share of the effective window as the model reads it, by the one rule of every percent (`context-share.ts`). */
const pct = (tokens: number, limit: number) => `${contextPercent(tokens, limit)} %`;

/** Builds the projection `committed + pending + new + schema` against the effective window. */
export function project(request: PreflightRequest, limits: ModelLimits): Projection {
  const committed = n(request.committed);
  const pending = n(request.pending);
  const newTokens = n(request.newTokens);
  const schema = n(request.schema);
  const total = committed + pending + newTokens + schema;
  const limit = Math.max(1, limits.effectiveWindow);
  return {
    model: limits.model,
    committed,
    pending,
    newTokens,
    schema,
    total,
    base: total - schema,
    limit,
    contextWindow: limits.contextWindow,
    maxOutput: limits.maxOutput,
    buffer: limits.buffer,
    ratio: contextShare(total, limit),
  };
}

/** Evaluates a request before it is sent. */
export function preflight(request: PreflightRequest, limits: ModelLimits, options: GuardOptions = {}): PreflightResult {
  const t = options.thresholds ?? DEFAULT_THRESHOLDS;
  const projection = project(request, limits);
  const baseRatio = projection.base / projection.limit;
  let status: GuardStatus = statusAt(projection.ratio, t);

  // Only the tool schemas push the projection over: said so (the caller may defer tools), but the
  // margin rule is the same as everywhere else.
  const schemaOnly = status === 'block' && statusAt(baseRatio, t) !== 'block';
  if (status === 'block' && request.compactionAttempted) status = 'final';
  const reason = schemaOnly ? schemaReason(status, projection) : reasonFor(status, projection);
  const result: PreflightResult = { status, projection, prepareSummary: projection.ratio >= t.background, schemaOnly, reason };
  emit(options, { kind: 'preflight', status, reason, projection, limit: projection.limit, thresholds: t, components: request.components });
  return result;
}

function schemaReason(status: GuardStatus, p: Projection): string {
  const what = `the conversation (${modelNumber(p.base)} tokens) plus tool definitions (${modelNumber(p.schema)} tokens) reach ${pct(p.total, p.limit)} of the effective window`;
  return status === 'final'
    ? `${what} even after compaction; forcing a final turn without tools`
    : `${what}; clear old results or defer tools before sending`;
}

function reasonFor(status: GuardStatus, p: Projection): string {
  const where = `${modelNumber(p.total)} of ${modelNumber(p.limit)} tokens (${pct(p.total, p.limit)} of the effective window)`;
  switch (status) {
    case 'ok':
      return `fits: ${where}`;
    case 'note':
      return `awareness note: ${where}`;
    case 'compact':
      return `compact before sending: ${where}`;
    case 'block':
      return `blocked until compacted: ${where}`;
    case 'final':
      return `still over after compaction: ${where}; forcing a final turn`;
  }
}

/**
 * Decides whether a tool result goes inline or to the result store: inline only if it is at most the
 * offload threshold AND the projection with it stays below the compact threshold.
 */
export function admit(result: ToolResultSize, projection: Projection, options: GuardOptions = {}): AdmitResult {
  const t = options.thresholds ?? DEFAULT_THRESHOLDS;
  const maxBytes = options.offloadThresholdBytes ?? 4096;
  const bytes = n(result.bytes);
  const tokens = n(result.tokens);
  const projectedTotal = projection.total + tokens;
  let out: AdmitResult;
  if (bytes > maxBytes) out = { decision: 'offload', reason: 'over_offload_threshold', projectedTotal };
  else if (projectedTotal >= t.compact * projection.limit) out = { decision: 'offload', reason: 'would_reach_compact', projectedTotal };
  else out = { decision: 'inline', reason: 'fits', projectedTotal };
  const reason =
    out.reason === 'fits'
      ? `inline: ${modelNumber(bytes)} bytes, projection ${modelNumber(projectedTotal)} of ${modelNumber(projection.limit)}`
      : out.reason === 'over_offload_threshold'
        ? `offload: ${modelNumber(bytes)} bytes is over the ${modelNumber(maxBytes)}-byte threshold`
        : `offload: inlining would bring the projection to ${pct(projectedTotal, projection.limit)} of the effective window`;
  emit(options, {
    kind: 'admit',
    status: out.decision,
    reason,
    projection,
    limit: projection.limit,
    thresholds: t,
    result: { bytes, tokens },
  });
  return out;
}

/**
 * The awareness note for the model (not cached) once the note threshold is reached, e.g.
 * "[Context: 83 % used. compact_context frees space.]"; `undefined` below it. The percent is the one
 * the panel shows for the same figure (`context-share.ts`: of the effective window), never capped: a
 * model told 100 % while the panel says 103 % is told something else than the user sees.
 */
export function awarenessNote(projection: Projection, thresholds: Thresholds = DEFAULT_THRESHOLDS): string | undefined {
  if (projection.ratio < thresholds.note) return undefined;
  return `[Context: ${pct(projection.total, projection.limit)} used. compact_context frees space.]`;
}

function emit(options: GuardOptions, trace: Omit<GuardTrace, 'at' | 'model'>): void {
  if (!options.onTrace) return;
  try {
    options.onTrace({ ...trace, at: (options.now ?? Date.now)(), model: trace.projection.model });
  } catch {
    // A broken log sink must not break the guard.
  }
}
