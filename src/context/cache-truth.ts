/**
 * The truth about the prompt cache, per request: what was read, written and sent uncached, and, when
 * a cache the previous request left was not read, why and what that cost. The reason comes from
 * Headroom's own record of what changed between the two requests, in the order of the providers'
 * invalidation rules (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#what-invalidates-the-cache:
 * tools, then system, then the message level, which `tool_choice` and the thinking parameters also
 * invalidate; an entry lives 5 minutes unless written for longer; a breakpoint finds an earlier entry
 * only within the 20 blocks before it; OpenAI caches by exact prefix,
 * https://developers.openai.com/api/docs/guides/prompt-caching). Pure; never throws.
 */
import type { ProviderId } from '../common/provider-catalogue';
import type { AppliedContextEdit, Message, ProviderRequest, Usage } from '../providers/types';
import { LIFETIME_MS, type CacheLifetime } from './cache-lifetime';
import { costOf, type Prices } from './cost';

/** Why a cache was missed. */
export type CacheMissReason =
  'expired' | 'model' | 'tools' | 'system' | 'thinking' | 'tool_choice' | 'cleared' | 'prefix' | 'lookback' | 'unexplained';

/** What a request was made of, as fingerprints (never the content itself). */
export interface RequestShape {
  model: string;
  tools: string;
  /** The system sections up to the last cache breakpoint (what is meant to be cached). */
  system: string;
  thinking: string;
  toolChoice: string;
  messages: readonly string[];
  /**
   * What the provider's context editing cleared from this request, as it reported (Anthropic
   * `applied_edits`): the prompt it read differs from what was sent from the first cleared result on.
   */
  cleared?: string;
  /** Content blocks of the messages (a provider with a lookback limit finds an entry only that many blocks back). */
  blocks: number;
  /** How many blocks before a breakpoint the provider looks for an earlier entry (undefined: no such limit). */
  lookback?: number;
  /** When it was sent (epoch ms). */
  at: number;
  /** The lifetime it asked its cache writes to live (absent: the provider's default). */
  lifetime?: CacheLifetime;
}

/** One request's cache figures, in tokens. */
export interface CacheFigures {
  read: number;
  write: number;
  uncached: number;
}

/** A cache the previous request left that this one did not read. */
export interface CacheMiss {
  at: number;
  model: string;
  reason: CacheMissReason;
  /** Tokens that could have been read from the cache and were not. */
  missedTokens: number;
  /** What the miss cost over reading them (undefined: the model has no known prices). */
  dollars?: number;
}

/** How long an entry lives unless the request asked for longer. */
export const DEFAULT_CACHE_TTL_MS = 5 * 60_000;
/** A shortfall under this many tokens (or 5 % of what was expected) is the provider's rounding, not a miss. */
const TOLERANCE_TOKENS = 1024;

const fingerprints = new WeakMap<object, string>();

/** FNV-1a over the JSON of `v`, memoized per object (messages are not changed once sent). */
function fingerprint(v: unknown): string {
  if (v !== null && typeof v === 'object') {
    const hit = fingerprints.get(v);
    if (hit !== undefined) return hit;
  }
  let h = 0x811c9dc5;
  const s = JSON.stringify(v ?? null) ?? '';
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  const out = `${(h >>> 0).toString(36)}:${s.length}`;
  if (v !== null && typeof v === 'object') fingerprints.set(v, out);
  return out;
}

/**
 * Anthropic looks for an earlier cache entry at most this many blocks before a breakpoint: a request
 * that adds more blocks at once than this after the last one reads nothing of it
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations).
 */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;

const blocksOf = (m: Message) => (Array.isArray(m.content) ? m.content.length : 1);

/** The shape of a request as sent at `at` to `provider` (its caching rules: Anthropic's lookback). */
export function requestShape(
  req: ProviderRequest,
  at = Date.now(),
  provider?: ProviderId,
  cleared?: readonly AppliedContextEdit[],
): RequestShape {
  const last = req.system.map((s) => s.cacheBreakpoint === true).lastIndexOf(true);
  return {
    ...(cleared?.length ? { cleared: cleared.map((e) => `${e.kind}:${e.cleared}:${e.inputTokens}`).join(',') } : {}),
    model: req.model,
    tools: fingerprint(req.tools.map((t) => [t.name, t.description, t.inputSchema])),
    system: fingerprint(req.system.slice(0, last + 1).map((s) => s.text)),
    thinking: JSON.stringify(req.thinking ?? null),
    toolChoice: req.toolChoice ?? 'auto',
    messages: req.messages.map((m: Message) => fingerprint(m)),
    blocks: req.messages.reduce((sum, m) => sum + blocksOf(m), 0),
    ...(provider === 'anthropic' ? { lookback: ANTHROPIC_LOOKBACK_BLOCKS } : {}),
    at,
    ...(req.cacheLifetime ? { lifetime: req.cacheLifetime } : {}),
  };
}

const n = (v: number | undefined) => (v !== undefined && Number.isFinite(v) && v > 0 ? v : 0);

export function cacheFigures(u: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>): CacheFigures {
  return { read: n(u.cacheRead), write: n(u.cacheWrite), uncached: n(u.input) };
}

/**
 * What the previous request left in the cache for this one: what it read and wrote; a provider that
 * caches implicitly (no writes reported) keeps the whole prompt once it read any of it.
 */
function expectedRead(prev: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>): number {
  const f = cacheFigures(prev);
  if (f.write > 0) return f.read + f.write;
  return f.read > 0 ? f.read + f.uncached : 0;
}

/** How long what `shape`'s request wrote lives: the lifetime it asked for, else the 5-minute default. */
export function shapeTtlMs(shape: RequestShape): number {
  return shape.lifetime ? LIFETIME_MS[shape.lifetime] : DEFAULT_CACHE_TTL_MS;
}

/** What changed from `prev` to `now`, in the invalidation order; undefined when nothing did. */
export function whatChanged(prev: RequestShape, now: RequestShape, ttlMs = shapeTtlMs(prev)): CacheMissReason | undefined {
  if (now.at - prev.at > ttlMs) return 'expired';
  if (now.model !== prev.model) return 'model';
  if (now.tools !== prev.tools) return 'tools';
  if (now.system !== prev.system) return 'system';
  if (now.thinking !== prev.thinking) return 'thinking';
  if (now.toolChoice !== prev.toolChoice) return 'tool_choice';
  // The provider cleared (more) old tool results: what it read changed from the first cleared one on
  // (https://platform.claude.com/docs/en/build-with-claude/context-editing: clearing invalidates the cached prefix).
  if ((now.cleared ?? '') !== (prev.cleared ?? '')) return 'cleared';
  // The previous request's messages, but its last (the tail breakpoint moves on), must start this one.
  const kept = prev.messages.slice(0, Math.max(0, prev.messages.length - 1));
  if (kept.some((h, i) => now.messages[i] !== h)) return 'prefix';
  // The tail breakpoint moved on by more blocks than the provider looks back from it.
  if (now.lookback !== undefined && now.blocks - prev.blocks >= now.lookback) return 'lookback';
  return undefined;
}

/**
 * The miss of `now` against the request before it, or undefined when it read what was expected (or
 * nothing was cached to read). `prices` undefined: the dollars are unknown.
 */
export function cacheMiss(
  prev: { shape: RequestShape; usage: Usage } | undefined,
  now: { shape: RequestShape; usage: Usage },
  prices: Prices | undefined,
  ttlMs = prev ? shapeTtlMs(prev.shape) : DEFAULT_CACHE_TTL_MS,
): CacheMiss | undefined {
  if (!prev || now.usage.estimated || prev.usage.estimated) return undefined;
  const expected = expectedRead(prev.usage);
  const f = cacheFigures(now.usage);
  const missed = Math.min(expected - f.read, f.write + f.uncached);
  if (missed <= Math.max(TOLERANCE_TOKENS, expected * 0.05)) return undefined;
  const reason = whatChanged(prev.shape, now.shape, ttlMs) ?? 'unexplained';
  return {
    at: now.shape.at,
    model: now.shape.model,
    reason,
    missedTokens: missed,
    dollars: prices ? missCost(now.usage, missed, prices) : undefined,
  };
}

/** Dollars the request paid over what it would have, had `missed` tokens been read from the cache. */
export function missCost(usage: Usage, missed: number, prices: Prices): number {
  const fromWrite = Math.min(missed, n(usage.cacheWrite));
  const fromInput = Math.min(missed - fromWrite, n(usage.input));
  const hit = {
    ...usage,
    cacheWrite: n(usage.cacheWrite) - fromWrite,
    input: n(usage.input) - fromInput,
    cacheRead: n(usage.cacheRead) + fromWrite + fromInput,
  };
  return Math.max(0, costOf(usage, prices) - costOf(hit, prices));
}
