/** Number formatting shared by the host's view-model mapping and the panel. Pure; never throws. */

/** 850 → "850", 8_300 → "8.3k", 83_200 → "83.2k", 117_000 → "117k", 1_050_000 → "1.05M". */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return '?';
  const sign = n < 0 ? '−' : '';
  const a = Math.abs(n);
  if (a < 1_000) return `${sign}${Math.round(a)}`;
  if (a < 100_000) return `${sign}${trim((a / 1_000).toFixed(1))}k`;
  if (a < 999_500) return `${sign}${Math.round(a / 1_000)}k`;
  return `${sign}${trim((a / 1_000_000).toFixed(2))}M`;
}

/**
 * A list price in USD (per million tokens), as price tables print it: 3 → "$3", 1.25 → "$1.25",
 * 0.125 → "$0.13", 0.5 → "$0.5". (Costs use `formatUsd`.)
 */
export function formatUsdRate(n: number): string {
  return `$${Number.isInteger(n) ? n : trim(n.toFixed(2))}`;
}

/** 0.416 → "42 %" (a whole percent; "<1 %" for small non-zero shares). */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction) || fraction <= 0) return '0 %';
  const p = Math.round(fraction * 100);
  return p === 0 ? '<1 %' : `${p} %`;
}

/** 0.0421 → "$0.042", 1.274 → "$1.27", 0.0004 → "<$0.001", 0 → "$0". */
export function formatUsd(dollars: number): string {
  if (!Number.isFinite(dollars)) return '?';
  const sign = dollars < 0 ? '−' : '';
  const a = Math.abs(dollars);
  if (a === 0) return '$0';
  if (a < 0.001) return `${sign}<$0.001`;
  // Sums of float prices land a hair under a half ($0.0795 as 0.07949…): round them up as a person would.
  const r = a + 1e-9;
  if (a < 1) return `${sign}$${trim(r.toFixed(3))}`;
  return `${sign}$${r.toFixed(2)}`;
}

/** 1_234_567 → "1.2 MB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '?';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${trim((n / 1024).toFixed(1))} KB`;
  if (n < 1024 ** 3) return `${trim((n / 1024 ** 2).toFixed(1))} MB`;
  return `${trim((n / 1024 ** 3).toFixed(2))} GB`;
}

/** 1_250 → "1.3 s", 420 → "420 ms". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trim((ms / 1_000).toFixed(1))} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

/** 1 → "1 message", 1234 → "1,234 messages" (thousands with a comma, as everywhere in Headroom). */
export function formatCount(n: number, noun: string, plural = `${noun}s`): string {
  const v = Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0;
  return `${v.toLocaleString('en-US')} ${v === 1 ? noun : plural}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * When something happened, relative to `now` (epoch ms, local time): "just now", "5 min ago",
 * "2 h ago", "yesterday", "3 days ago", then "22 Nov" (this year) or "22 Nov 2025".
 */
export function formatRelativeDate(at: number, now: number = Date.now()): string {
  if (!Number.isFinite(at) || !Number.isFinite(now)) return '?';
  const ago = now - at;
  if (ago < 60_000) return 'just now';
  if (ago < 3_600_000) return `${Math.floor(ago / 60_000)} min ago`;
  const then = new Date(at);
  const today = new Date(now);
  const days = Math.round((startOfDay(today) - startOfDay(then)) / 86_400_000);
  if (days <= 0) return `${Math.floor(ago / 3_600_000)} h ago`;
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  const date = `${then.getDate()} ${MONTHS[then.getMonth()]}`;
  return then.getFullYear() === today.getFullYear() ? date : `${date} ${then.getFullYear()}`;
}

function startOfDay(d: Date): number {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

function trim(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}
