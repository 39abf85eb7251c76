/**
 * Per-message token accounting: what of a message is text to tokenize, what is a fixed cost, and how
 * text counts combine into the message's count for a tokenizer family. Pure; no encoder here, so the
 * extension host can use it without loading ranks.
 */
import { createHash } from 'node:crypto';
import { imageTokens } from '../common/images';
import type { Message, ToolDefinition } from '../providers/types';
import { claudeBound, type TokenizerFamily } from './models';
import { contentClassOf, estimateTokens } from './safe-estimate';
import { composition, type ContentClass } from './text-composition';
import { byteEstimate } from './utf8';

/** Role label and JSON framing of one message. */
export const MESSAGE_OVERHEAD = 4;
/** Framing of one tool call (id, type, name/arguments wrappers). */
export const TOOL_CALL_OVERHEAD = 10;
/** Framing of one tool result (tool_call_id, is_error). */
export const TOOL_RESULT_OVERHEAD = 8;
/** Framing of one reasoning block. */
export const REASONING_OVERHEAD = 4;
/** Framing of one tool definition. */
export const TOOL_DEFINITION_OVERHEAD = 12;

/** How one text was counted in one tokenizer family (the token worker's count, or a safe estimate). */
export interface TextCount {
  /** Tokens in `family`: the tokenizer's count, or an upper-bound estimate (`source: 'bytes'`). */
  tokens: number;
  family: TokenizerFamily;
  /** An estimate's figures in every family (the same scan gives all three). */
  estimates?: Readonly<Record<TokenizerFamily, number>>;
  bytes: number;
  /**
   * `tokenizer`: counted by the worker — every token for o200k and cl100k; for `claude`, whose tokenizer
   * Headroom does not ship, the tighter of two upper bounds (see `claudeTokens`). `bytes`: the safe
   * estimate from the text's composition, until the worker answers (the name is historic).
   */
  source: 'tokenizer' | 'bytes';
  /** What the text mostly is; absent means unknown. */
  contentClass?: ContentClass;
}

/**
 * A message's count as persisted with it. `exact` is true when every text was counted by the worker
 * (every token, for o200k and cl100k), false for an estimate. For the `claude` family "exact" means the
 * worker's bound, which calibration then corrects.
 */
export interface MessageCount {
  hash: string;
  family: TokenizerFamily;
  tokens: number;
  exact: boolean;
  /** The class most of its tokens come from (calibration is kept per class). */
  contentClass?: ContentClass;
  /**
   * A Claude estimate on the worker's scale (each text's o200k estimate times its class factor, as the
   * worker computes Claude's figure): what a calibration factor applies to, since calibration learns
   * on the worker's figures. The estimate itself is tighter; a factor learned on the worker's figure
   * applied to it under-counted by a third. Absent: `tokens` is on that scale already.
   */
  bound?: number;
  /**
   * Whether the message is mostly runs of one character (`isRepetitive`), when known: seeded from the
   * store, so the first meter after a resume need not look at the text. Absent: the meter works it out.
   */
  repetitive?: boolean;
}

/** The countable pieces of a message: texts to tokenize plus a fixed number of tokens. */
export interface MessageParts {
  texts: string[];
  fixed: number;
}

/** Splits a message into texts and fixed costs. Never throws (unserializable arguments count as their raw text or `{}`). */
export function messageParts(msg: Message): MessageParts {
  const texts: string[] = [];
  let fixed = MESSAGE_OVERHEAD;
  if (msg.role === 'toolResult') {
    fixed += TOOL_RESULT_OVERHEAD;
    texts.push(msg.toolName);
  }
  for (const part of msg.content) {
    switch (part.type) {
      case 'text':
        texts.push(part.text);
        break;
      case 'image':
        // By its size in pixels, never its bytes (`imageTokens` documents the rule).
        fixed += imageTokens(part.width, part.height);
        break;
      case 'reasoning':
        fixed += REASONING_OVERHEAD;
        texts.push(part.text);
        // Redacted thinking is opaque data sent back verbatim: count it by bytes.
        if (part.redactedData) fixed += byteEstimate(Buffer.byteLength(part.redactedData, 'utf8'));
        break;
      case 'toolCall':
        fixed += TOOL_CALL_OVERHEAD;
        texts.push(part.name, part.rawArguments ?? safeJson(part.arguments));
        break;
    }
  }
  return { texts, fixed };
}

/** The countable pieces of tool definitions (name, description, JSON schema). */
export function toolDefinitionParts(tools: readonly ToolDefinition[]): MessageParts {
  const texts: string[] = [];
  for (const t of tools) texts.push(t.name, t.description, safeJson(t.inputSchema));
  return { texts, fixed: tools.length * TOOL_DEFINITION_OVERHEAD };
}

/**
 * Tokens of one text in `family`: the count's own figure when it was made for that family, an
 * estimate's figure for it, or else the text's UTF-8 bytes (a byte-level BPE never spends more tokens
 * than bytes).
 */
export function familyTokens(count: TextCount, family: TokenizerFamily): number {
  if (count.family === family) return count.tokens;
  return count.estimates?.[family] ?? count.bytes;
}

/** The safe stand-in for a text's count until the worker's arrives: an upper bound from its composition. */
export function estimateText(text: string, family: TokenizerFamily = 'o200k'): TextCount {
  const c = composition(text);
  const o200k = estimateTokens(c, 'o200k');
  // Claude's figure never goes below o200k's (see `worker-count.ts`).
  const estimates = { o200k, cl100k: estimateTokens(c, 'cl100k'), claude: Math.max(o200k, estimateTokens(c, 'claude')) };
  return {
    tokens: estimates[family],
    family,
    estimates,
    bytes: Buffer.byteLength(text, 'utf8'),
    source: 'bytes',
    contentClass: contentClassOf(c),
  };
}

/** Combines per-text counts into a message total; the message's class is the class of most of its tokens. */
export function combineCounts(
  parts: MessageParts,
  counts: readonly TextCount[],
  family: TokenizerFamily,
): { tokens: number; exact: boolean; contentClass?: ContentClass; bound?: number } {
  let tokens = parts.fixed;
  let bound = parts.fixed;
  let exact = true;
  let contentClass: ContentClass | undefined;
  let most = -1;
  const byClass = new Map<ContentClass, number>();
  for (const c of counts) {
    const t = familyTokens(c, family);
    tokens += t;
    bound += family === 'claude' && c.source !== 'tokenizer' ? claudeBound(c.estimates?.o200k ?? t, c.contentClass) : t;
    if (c.source !== 'tokenizer') exact = false;
    if (c.contentClass) {
      const sum = (byClass.get(c.contentClass) ?? 0) + t;
      byClass.set(c.contentClass, sum);
      if (sum > most) [contentClass, most] = [c.contentClass, sum];
    }
  }
  const scale = bound > tokens ? { bound } : {};
  return contentClass ? { tokens, exact, contentClass, ...scale } : { tokens, exact, ...scale };
}

/**
 * Content hash of a message: role, content, tool ids. Independent of timestamps, usage and the family,
 * so the same content always maps to the same memo entry.
 */
export function messageHash(msg: Message): string {
  // Fed part by part (no JSON.stringify of the whole content): a 1 MB tool result hashes in ~2 ms.
  const h = createHash('sha1');
  h.update(msg.role);
  if (msg.role === 'toolResult') h.update('\u0000' + msg.toolCallId + '\u0000' + msg.toolName + (msg.isError ? '\u0000E' : ''));
  for (const part of msg.content) {
    h.update('\u0001' + part.type + '\u0000');
    switch (part.type) {
      case 'text':
        h.update(part.text);
        break;
      case 'image':
        h.update(part.mediaType + '\u0000').update(part.data);
        break;
      case 'reasoning':
        h.update(part.text).update('\u0000' + (part.signature ?? '') + '\u0000' + (part.redactedData ?? ''));
        break;
      case 'toolCall':
        h.update(part.id + '\u0000' + part.name + '\u0000' + (part.rawArguments ?? safeJson(part.arguments)));
        break;
    }
  }
  return h.digest('hex');
}

/** Counts a message synchronously with a text counter (worker, bench); never throws if `countText` does not. */
export function countMessageWith(msg: Message, family: TokenizerFamily, countText: (text: string) => TextCount): MessageCount {
  const parts = messageParts(msg);
  return { hash: messageHash(msg), family, ...combineCounts(parts, parts.texts.map(countText), family) };
}

/** The byte-based estimate of a message, flagged `exact: false`. */
export function estimateMessage(msg: Message, family: TokenizerFamily, hash = messageHash(msg)): MessageCount {
  const parts = messageParts(msg);
  return {
    hash,
    family,
    ...combineCounts(
      parts,
      parts.texts.map((t) => estimateText(t, family)),
      family,
    ),
    exact: false,
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '{}';
  }
}
