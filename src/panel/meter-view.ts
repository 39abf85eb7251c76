/**
 * Maps the context engine's budget (or the loop's plain usage) to the meter's view model. Pure (no
 * vscode); never throws: non-finite numbers count as 0.
 */
import type { ContextUsage } from '../agent/events';
import type { BudgetViewModel } from '../context/budget';
import { statusAt } from '../context/compaction/context-status';
import { contextPercent, contextShare } from '../context/context-share';
import type { GuardStatus } from '../context/guard';
import type { SpendState } from '../agent/spend-recorder';
import { formatPercent, formatTokens } from '../protocol/format';
import { cacheDetails } from './cache-view';
import { meterCostLabel } from './cost-text';
import type { MeterSegment, MeterView } from '../protocol/view-models';

export const SEGMENT_LABELS: Record<MeterSegment['key'], string> = {
  system: 'System prompt',
  rules: 'Rules',
  tools: 'Tools',
  deferredTools: 'Deferred tool stubs',
  summary: 'Summary',
  messages: 'Messages',
  toolResults: 'Tool results',
  context: 'Context',
};

/** Extra facts the meter shows that the budget does not carry. */
export interface MeterExtras {
  status?: GuardStatus;
  /** The last compaction: tokens freed and when (epoch ms). */
  lastCompaction?: { freedTokens: number; at: number } | null;
  /** Why auto-compaction is paused by the loop breaker; null when it is not. */
  pausedReason?: string | null;
  /** What the session spent (its stored spend included) and the running or last turn's dollars. */
  cost?: SpendState;
}

const num = (n: number | null | undefined): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

const WINDOW_SOURCES: Record<BudgetViewModel['limitSource'], string> = {
  server: 'window reported by the server',
  provider: 'window reported by the provider',
  'model-setting': 'window from settings (model)',
  'provider-setting': 'window from settings (provider)',
  table: 'window from the model table',
  default: 'window unknown',
};

/** Where the window comes from; an unknown model's says what was assumed ("window unknown — assumed 128k"). */
function windowSource(b: BudgetViewModel): string | null {
  const source = WINDOW_SOURCES[b.limitSource] as string | undefined;
  if (source === undefined) return null;
  return b.limitSource === 'default' ? `${source} — assumed ${formatTokens(num(b.window))}` : source;
}

/** The meter for a budget with its component breakdown. */
export function meterFromBudget(b: BudgetViewModel, extras: MeterExtras = {}): MeterView {
  const window = num(b.window);
  const limit = num(b.effectiveWindow);
  const segments: MeterSegment[] = b.components.map((c) => segment(c.name, num(c.tokens), limit));
  const used = segments.reduce((s, c) => s + c.tokens, 0);
  const cache = b.cacheReadShare;
  return finish({
    model: b.model,
    window,
    limit,
    used,
    segments,
    outputTokens: num(b.maxOutput) + num(b.buffer),
    outputTitle: `Reserved for the answer: ${formatTokens(num(b.maxOutput))} tokens + ${formatTokens(num(b.buffer))} safety buffer, outside the ${formatTokens(limit)}`,
    markers: { compact: num(b.markers.compact), block: num(b.markers.block) },
    confirmed: b.confirmed,
    accuracy: accuracyText(b),
    cacheLabel: cache === null || !Number.isFinite(cache) ? null : `${formatPercent(cache)} of the last request read from cache`,
    deferredLabel:
      b.deferred.count > 0
        ? `${b.deferred.count} ${b.deferred.count === 1 ? 'tool' : 'tools'} deferred (${formatTokens(b.deferred.savedTokens)} tokens saved)`
        : null,
    freedTokens: extras.lastCompaction?.freedTokens ?? num(b.lastCompactionFreed),
    windowLabel: windowSource(b),
    untilCompact: Number.isFinite(b.untilCompact) ? Math.max(0, b.untilCompact) : null,
    extras,
    details: [...meterDetails(b), ...cacheDetails(extras.cost)],
  });
}

/**
 * What the meter's details view lists (hover, the keyboard-reachable Details view and Headroom: Show
 * Context Breakdown): each component with tokens and share of the effective window, the reservation
 * outside it, what is free, the thresholds, where the window comes from and how sure the figure is.
 */
export function meterDetails(b: BudgetViewModel): Array<{ label: string; value: string }> {
  const window = num(b.window);
  const eff = num(b.effectiveWindow);
  const share = (tokens: number) => formatPercent(contextShare(tokens, eff));
  const rows = [{ label: 'Used', value: `${formatTokens(num(b.used))} tokens, ${share(num(b.used))} ${ofLimit(eff)}` }];
  rows.push(
    ...b.components.map((c) => ({
      label: SEGMENT_LABELS[c.name],
      value: `${formatTokens(num(c.tokens))} tokens (${share(num(c.tokens))})`,
    })),
  );
  const free = Math.max(0, eff - num(b.used));
  const at = (threshold: number) => `${formatPercent(threshold)} (${formatTokens(threshold * eff)})`;
  rows.push(
    {
      label: 'Reserved for output',
      value: `${formatTokens(num(b.maxOutput))} + ${formatTokens(num(b.buffer))} buffer for the answer, outside the ${formatTokens(eff)}`,
    },
    { label: 'Free', value: `${formatTokens(free)} tokens (${share(free)})` },
    {
      label: 'Thresholds',
      value: `note ${at(b.markers.note)} · summary prepared ${at(b.markers.background)} · compact ${at(b.markers.compact)} · block ${at(b.markers.block)} ${ofLimit(eff)}`,
    },
    {
      label: 'Window',
      value: `${formatTokens(window)} tokens for ${b.model || 'this model'}, ${formatTokens(eff)} of them for the context: ${windowSource(b) ?? 'window of unknown origin'}`,
    },
    { label: 'Estimate', value: estimateText(b) },
  );
  return rows;
}

/** How every percentage names its denominator: "of the 23.4k this model can take". */
export function ofLimit(limit: number): string {
  return `of the ${formatTokens(limit)} this model can take`;
}

function estimateText(b: BudgetViewModel): string {
  const band = formatTokens(Math.max(1, num(b.bandTokens)));
  if (b.confirmed && b.confirmedTokens !== null && b.confirmedTokens !== undefined) {
    if (b.estimatedTokens <= 0) return `${formatTokens(b.confirmedTokens)} tokens as the provider counted the last request`;
    return `${formatTokens(b.confirmedTokens)} tokens as the provider counted the last request, plus ${formatTokens(b.estimatedTokens)} estimated since (±${band}, from the errors observed so far)`;
  }
  return `estimated: ${formatTokens(num(b.used))} ±${band} tokens (${b.accuracy}; from the errors observed so far)`;
}

/**
 * The meter from the loop's `context_usage` event: the breakdown when the event carries a budget,
 * otherwise a single "Context" segment (never hard-coded numbers).
 */
export function meterFromUsage(u: ContextUsage, extras: MeterExtras = {}): MeterView {
  const withStatus = { ...extras, status: extras.status ?? u.status };
  if (u.budget) return meterFromBudget(u.budget, withStatus);
  const window = num(u.contextWindow);
  const limit = num(u.effectiveWindow);
  const outputTokens = Math.max(0, window - limit);
  return finish({
    model: '',
    window,
    limit,
    used: num(u.used),
    segments: [segment('context', num(u.used), limit)],
    outputTokens,
    outputTitle: `Reserved for the answer: ${formatTokens(outputTokens)} tokens, outside the ${formatTokens(limit)}`,
    markers: { compact: 0, block: 0 },
    confirmed: false,
    accuracy: 'estimated',
    cacheLabel: null,
    deferredLabel: null,
    freedTokens: extras.lastCompaction?.freedTokens ?? 0,
    windowLabel: null,
    untilCompact: null,
    extras: withStatus,
    details: cacheDetails(extras.cost),
  });
}

/**
 * How sure the figure is, in a user's words: "from the server" (the provider counted the last request and
 * nothing was added since), "31.2k from the server + 1.4k estimated (±0.3k)", or "estimated ±12 %".
 */
export function accuracyText(
  b: Pick<BudgetViewModel, 'confirmed' | 'confirmedTokens' | 'estimatedTokens' | 'bandTokens' | 'accuracy'>,
): string {
  if (!b.confirmed) return b.accuracy;
  if (b.confirmedTokens === null || b.confirmedTokens === undefined || b.estimatedTokens <= 0) return 'from the server';
  return `${formatTokens(b.confirmedTokens)} from the server + ${formatTokens(b.estimatedTokens)} estimated (±${formatTokens(Math.max(1, b.bandTokens))})`;
}

function segment(key: MeterSegment['key'], tokens: number, limit: number): MeterSegment {
  const fraction = contextShare(tokens, limit);
  return {
    key,
    label: SEGMENT_LABELS[key],
    tokens,
    fraction,
    title: `${SEGMENT_LABELS[key]}: ${formatTokens(tokens)} tokens (${formatPercent(fraction)})`,
  };
}

interface Parts {
  model: string;
  window: number;
  /** The effective window: the bar's whole width and every percent's denominator. */
  limit: number;
  used: number;
  segments: MeterSegment[];
  outputTokens: number;
  outputTitle: string;
  markers: { compact: number; block: number };
  confirmed: boolean;
  accuracy: string;
  cacheLabel: string | null;
  deferredLabel: string | null;
  freedTokens: number;
  windowLabel: string | null;
  /** Tokens until automatic compaction (null: not known without a budget). */
  untilCompact: number | null;
  extras: MeterExtras;
  details?: Array<{ label: string; value: string }>;
}

function finish(p: Parts): MeterView {
  const { window, limit, used } = p;
  const freeTokens = limit - used;
  const fraction = contextShare(used, limit);
  const at = p.extras.lastCompaction?.at;
  return {
    model: p.model,
    window,
    effectiveWindow: limit,
    used,
    percent: contextPercent(used, limit),
    segments: p.segments,
    output: { tokens: p.outputTokens, title: p.outputTitle },
    free: {
      tokens: freeTokens,
      fraction: contextShare(Math.max(0, freeTokens), limit),
      title: `Free: ${formatTokens(Math.max(0, freeTokens))} tokens`,
    },
    markers: p.markers,
    usedLabel: `${formatTokens(used)} / ${formatTokens(limit)} (${formatPercent(fraction)})`,
    shareLabel: `${formatPercent(fraction)} ${ofLimit(limit)}`,
    confirmed: p.confirmed,
    accuracy: p.accuracy,
    cacheLabel: p.cacheLabel,
    deferredLabel: p.deferredLabel,
    windowLabel: p.windowLabel,
    freed: p.freedTokens > 0 && at !== undefined ? { label: `freed ${formatTokens(p.freedTokens)}`, at } : null,
    // Without a status from the gate: from the markers (the thresholds; 0 = no marker) by the one rule.
    status: p.extras.status ?? statusAt(fraction, { compact: p.markers.compact || undefined, block: p.markers.block || undefined }),
    pausedReason: p.extras.pausedReason ?? null,
    untilCompactLabel: untilCompactLabel(p.untilCompact, p.extras.pausedReason ?? null),
    costLabel: meterCostLabel(p.extras.cost),
    details: p.details,
  };
}

/** "31k to compact" (before it compacts by itself), or that it compacts before the next request; null while paused or unknown. */
export function untilCompactLabel(until: number | null, pausedReason: string | null): string | null {
  if (until === null || pausedReason) return null;
  return until > 0 ? `${formatTokens(until)} to compact` : 'compacts before the next request';
}

/**
 * What the status bar item says, from the meter's own view model (same figure, same percent, same
 * formatting): "42 %", and "55.4k tokens, 42 % of the 132k this model can take · 31k to compact · estimated ±2 %".
 */
export function statusBarText(usage: ContextUsage): {
  percent: string;
  wholePercent: number;
  tooltip: string;
  level: 'none' | 'warning' | 'error';
} {
  const meter = meterFromUsage(usage);
  const percent = formatPercent(contextShare(meter.used, meter.effectiveWindow));
  const tooltip = [`${formatTokens(meter.used)} tokens, ${meter.shareLabel}`, meter.untilCompactLabel, meter.accuracy]
    .filter(Boolean)
    .join(' · ');
  const level = meter.status === 'note' ? 'warning' : meter.status === 'ok' ? 'none' : 'error';
  return { percent, wholePercent: meter.percent, tooltip, level };
}
