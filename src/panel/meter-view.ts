/**
 * Maps the context engine's budget (or the loop's plain usage) to the meter's view model. Pure (no
 * vscode); never throws: non-finite numbers count as 0.
 */
import type { ContextUsage } from '../agent/events';
import type { BudgetViewModel } from '../context/budget';
import { statusAt } from '../context/compaction/context-status';
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
  const segments: MeterSegment[] = b.components.map((c) => segment(c.name, num(c.tokens), window));
  const used = segments.reduce((s, c) => s + c.tokens, 0);
  const cache = b.cacheReadShare;
  return finish({
    model: b.model,
    window,
    used,
    segments,
    outputTokens: num(b.maxOutput) + num(b.buffer),
    outputTitle: `Reserved for output: ${formatTokens(num(b.maxOutput))} tokens + ${formatTokens(num(b.buffer))} safety buffer`,
    markers: { compact: num(b.markers.compact), block: num(b.markers.block) },
    confirmed: b.confirmed,
    accuracy: accuracyText(b),
    cacheLabel: cache === null || !Number.isFinite(cache) ? null : `cache ${formatPercent(cache)} of input`,
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
 * Context Breakdown): each component with tokens and share of the window, the reservation, what is
 * free, the thresholds, where the window comes from and how sure the figure is.
 */
export function meterDetails(b: BudgetViewModel): Array<{ label: string; value: string }> {
  const window = num(b.window);
  const share = (tokens: number) => (window > 0 ? tokens / window : 0);
  const rows = b.components.map((c) => ({
    label: SEGMENT_LABELS[c.name],
    value: `${formatTokens(num(c.tokens))} tokens (${formatPercent(share(num(c.tokens)))})`,
  }));
  const reserved = num(b.maxOutput) + num(b.buffer);
  const free = window - num(b.used) - reserved;
  const eff = num(b.effectiveWindow);
  const at = (marker: number) => {
    const tokens = marker * window;
    return `${formatPercent(eff > 0 ? tokens / eff : 0)} (${formatTokens(tokens)})`;
  };
  rows.push(
    {
      label: 'Reserved for output',
      value: `${formatTokens(num(b.maxOutput))} + ${formatTokens(num(b.buffer))} buffer (${formatPercent(share(reserved))})`,
    },
    { label: 'Free', value: `${formatTokens(Math.max(0, free))} tokens (${formatPercent(share(Math.max(0, free)))})` },
    {
      label: 'Thresholds',
      value: `note ${at(b.markers.note)} · summary prepared ${at(b.markers.background)} · compact ${at(b.markers.compact)} · block ${at(b.markers.block)} of the ${formatTokens(eff)}-token effective window`,
    },
    {
      label: 'Window',
      value: `${formatTokens(window)} tokens for ${b.model || 'this model'}: ${windowSource(b) ?? 'window of unknown origin'}`,
    },
    { label: 'Estimate', value: estimateText(b) },
  );
  return rows;
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
  const outputTokens = Math.max(0, window - num(u.effectiveWindow));
  return finish({
    model: '',
    window,
    used: num(u.used),
    segments: [segment('context', num(u.used), window)],
    outputTokens,
    outputTitle: `Reserved for output: ${formatTokens(outputTokens)} tokens`,
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

/** "31.2k confirmed + 1.4k est. (±0.3k)", "confirmed", or "estimated ±12 %". */
export function accuracyText(
  b: Pick<BudgetViewModel, 'confirmed' | 'confirmedTokens' | 'estimatedTokens' | 'bandTokens' | 'accuracy'>,
): string {
  if (!b.confirmed || b.confirmedTokens === null || b.confirmedTokens === undefined) return b.accuracy;
  if (b.estimatedTokens <= 0) return 'confirmed';
  return `${formatTokens(b.confirmedTokens)} confirmed + ${formatTokens(b.estimatedTokens)} est. (±${formatTokens(Math.max(1, b.bandTokens))})`;
}

function segment(key: MeterSegment['key'], tokens: number, window: number): MeterSegment {
  const fraction = window > 0 ? tokens / window : 0;
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
  const { window, used } = p;
  const outputFraction = window > 0 ? p.outputTokens / window : 0;
  const freeTokens = window - used - p.outputTokens;
  const freeFraction = window > 0 ? Math.max(0, freeTokens) / window : 0;
  const fraction = window > 0 ? used / window : 0;
  const at = p.extras.lastCompaction?.at;
  return {
    model: p.model,
    window,
    used,
    percent: Math.round(fraction * 100),
    segments: p.segments,
    output: { tokens: p.outputTokens, fraction: outputFraction, title: p.outputTitle },
    free: { tokens: freeTokens, fraction: freeFraction, title: `Free: ${formatTokens(Math.max(0, freeTokens))} tokens` },
    markers: p.markers,
    usedLabel: `${formatTokens(used)} / ${formatTokens(window)} (${formatPercent(fraction)})`,
    confirmed: p.confirmed,
    accuracy: p.accuracy,
    cacheLabel: p.cacheLabel,
    deferredLabel: p.deferredLabel,
    windowLabel: p.windowLabel,
    freed: p.freedTokens > 0 && at !== undefined ? { label: `freed ${formatTokens(p.freedTokens)}`, at } : null,
    // Without a status from the gate: from the markers (fractions of the window; 0 = no marker).
    status: p.extras.status ?? statusAt(fraction, { compact: p.markers.compact || undefined, block: p.markers.block || undefined }),
    pausedReason: p.extras.pausedReason ?? null,
    untilCompactLabel: untilCompactLabel(p.untilCompact, p.extras.pausedReason ?? null),
    costLabel: meterCostLabel(p.extras.cost),
    details: p.details,
  };
}

/** "31k until auto-compact", or that it compacts before the next request; null while paused or unknown. */
export function untilCompactLabel(until: number | null, pausedReason: string | null): string | null {
  if (until === null || pausedReason) return null;
  return until > 0 ? `${formatTokens(until)} until auto-compact` : 'auto-compacts before the next request';
}

/**
 * What the status bar item says, from the meter's own view model (same figure, same percent, same
 * formatting): "42 %", and "83.2k / 200k (42 %) · 31k until auto-compact · estimated ±2 %".
 */
export function statusBarText(usage: ContextUsage): {
  percent: string;
  wholePercent: number;
  tooltip: string;
  level: 'none' | 'warning' | 'error';
} {
  const meter = meterFromUsage(usage);
  const percent = formatPercent(meter.window > 0 ? meter.used / meter.window : 0);
  const tooltip = [meter.usedLabel, meter.untilCompactLabel, meter.accuracy].filter(Boolean).join(' · ');
  const level = meter.status === 'note' ? 'warning' : meter.status === 'ok' ? 'none' : 'error';
  return { percent, wholePercent: meter.percent, tooltip, level };
}
