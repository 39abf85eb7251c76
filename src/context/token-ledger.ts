/**
 * The per-message token memo the extension host uses. Synchronous reads for the meter (memoized count
 * or a byte estimate right away), tokenizer counts filled in the background by a `TextCounter`
 * (normally the worker), and persisted counts seeded back from the store so a resumed session needs
 * no recount.
 *
 * Contract: a message object must not be mutated after it was counted (append a new object instead);
 * counts are memoized by object identity first and by content hash second. Never throws.
 */
import { createHash } from 'node:crypto';
import { Disposable } from '../common/disposable';
import { Emitter, type Event } from '../common/emitter';
import type { Message } from '../providers/types';
import { combineCounts, estimateText, messageHash, messageParts, type MessageCount, type MessageParts } from './message-tokens';
import type { TokenizerFamily } from './models';
import { CONTENT_CLASSES, type ContentClass } from './text-composition';
import type { TextCounter } from './token-worker-client';

/** A total over several messages. `pending` is how many of them are still byte estimates. */
export interface LedgerTotal {
  tokens: number;
  exact: boolean;
  pending: number;
}

/** A count as the store gives it back (`StoredCount`): family and class are plain strings. */
export interface SeedCount {
  hash: string;
  family: string;
  tokens: number;
  exact: boolean;
  contentClass?: string;
  repetitive?: boolean;
  /** The message object the count was stored with. */
  message?: Message;
}

const keyOf = (hash: string, family: TokenizerFamily) => `${family}:${hash}`;
const KNOWN_CLASSES: ReadonlySet<string> = new Set(CONTENT_CLASSES);

export class TokenLedger extends Disposable {
  private readonly byObject = new WeakMap<object, MessageCount>();
  /** Read through `hashed()`. */
  private readonly byHash = new Map<string, MessageCount>();
  private unindexed: MessageCount[] = [];
  private readonly inflight = new Map<string, Promise<MessageCount>>();
  /** Keys whose tokenizer count was attempted and came back as an estimate (tokenizer down): not retried. */
  private readonly settled = new Set<string>();

  private readonly _onDidCount = this._register(new Emitter<MessageCount>());
  /** Fires when a tokenizer count replaces an estimate (re-render the meter). */
  readonly onDidCount: Event<MessageCount> = this._onDidCount.event;

  /** Without a counter every count stays a byte estimate. */
  constructor(private readonly counter?: TextCounter) {
    super();
  }

  /** Number of memoized counts (for diagnostics). */
  get size(): number {
    return this.hashed().size;
  }

  /**
   * Adds counts persisted by the store. A seeded exact count is never replaced by an estimate. A count
   * given with the `message` object it was stored with is memoized for that object too, so the first
   * meter after a resume neither hashes nor counts anything (O(1) per message). A family or class this
   * version does not know only seeds keys that are never looked up (an unknown class is dropped).
   */
  seed(counts: Iterable<SeedCount>): void {
    for (const s of counts) {
      const c: MessageCount = { hash: s.hash, family: s.family as TokenizerFamily, tokens: s.tokens, exact: s.exact };
      if (s.contentClass !== undefined && KNOWN_CLASSES.has(s.contentClass)) c.contentClass = s.contentClass as ContentClass;
      if (s.repetitive !== undefined) c.repetitive = s.repetitive;
      // Indexed by hash only when a hash is first looked up: the first meter after a resume finds every
      // count through its message object and builds no keys.
      this.unindexed.push(c);
      if (s.message) this.byObject.set(s.message, c);
    }
  }

  /** `byHash`, with the seeded counts not yet indexed added first. */
  private hashed(): Map<string, MessageCount> {
    if (this.unindexed.length === 0) return this.byHash;
    for (const c of this.unindexed) {
      const k = keyOf(c.hash, c.family);
      const prev = this.byHash.get(k);
      if (!prev || (c.exact && !prev.exact)) this.byHash.set(k, c);
    }
    this.unindexed = [];
    return this.byHash;
  }

  /**
   * The message's count right now: memoized if known, else a byte estimate (`exact: false`) while a
   * tokenizer count is requested in the background. O(1) for a message object already seen.
   */
  count(msg: Message, family: TokenizerFamily): MessageCount {
    const hit = this.byObject.get(msg);
    if (hit && hit.family === family && this.isFinal(hit)) return hit;
    const hash = hit?.hash ?? messageHash(msg);
    const parts = this.isFinalKey(hash, family) ? undefined : messageParts(msg);
    const c = this.lookup(hash, family, parts, true);
    this.byObject.set(msg, c);
    return c;
  }

  /** The tokenizer count (memoized), or the estimate if no tokenizer is available. Never rejects. */
  countExact(msg: Message, family: TokenizerFamily): Promise<MessageCount> {
    const hash = this.byObject.get(msg)?.hash ?? messageHash(msg);
    return this.request(hash, family, messageParts(msg)).then((c) => {
      this.byObject.set(msg, c);
      return c;
    });
  }

  /** Sum over messages with `count` (synchronous). */
  total(messages: readonly Message[], family: TokenizerFamily): LedgerTotal {
    let tokens = 0;
    let pending = 0;
    for (const m of messages) {
      const c = this.count(m, family);
      tokens += c.tokens;
      if (!c.exact) pending++;
    }
    return { tokens, exact: pending === 0, pending };
  }

  /** Counts free text (system prompt sections, rules, tool definitions): no message framing, same memo. */
  countText(text: string, family: TokenizerFamily): MessageCount {
    return this.countTexts([text], family);
  }

  /** Counts several texts as one unit (e.g. all tool definitions), memoized by their joint hash. */
  countTexts(texts: readonly string[], family: TokenizerFamily, fixed = 0): MessageCount {
    return this.lookup(textsHash(texts, fixed), family, { texts: [...texts], fixed }, true);
  }

  /** The tokenizer count of `countTexts`'s unit (memoized), or the estimate if no tokenizer is available. Never rejects. */
  countTextsExact(texts: readonly string[], family: TokenizerFamily, fixed = 0): Promise<MessageCount> {
    return this.request(textsHash(texts, fixed), family, { texts: [...texts], fixed });
  }

  private isFinal(c: MessageCount): boolean {
    return c.exact || !this.counter || this.settled.has(keyOf(c.hash, c.family)) || this.inflight.has(keyOf(c.hash, c.family));
  }

  private isFinalKey(hash: string, family: TokenizerFamily): boolean {
    const c = this.hashed().get(keyOf(hash, family));
    return c !== undefined && this.isFinal(c);
  }

  /** Memoized count or estimate; starts a tokenizer count when useful. `parts` may be omitted only for final keys. */
  private lookup(hash: string, family: TokenizerFamily, parts: MessageParts | undefined, start: boolean): MessageCount {
    const k = keyOf(hash, family);
    const known = this.hashed().get(k);
    if (known && this.isFinal(known)) return known;
    const p = parts!;
    const estimate =
      known ??
      this.combine(
        hash,
        family,
        p,
        p.texts.map((t) => estimateText(t, family)),
      );
    if (!known) this.hashed().set(k, estimate);
    if (start && this.counter) void this.request(hash, family, p);
    return estimate;
  }

  private request(hash: string, family: TokenizerFamily, parts: MessageParts): Promise<MessageCount> {
    const k = keyOf(hash, family);
    const known = this.hashed().get(k);
    if (known?.exact || (known && this.settled.has(k))) return Promise.resolve(known);
    const running = this.inflight.get(k);
    if (running) return running;
    if (!this.counter) {
      const est =
        known ??
        this.combine(
          hash,
          family,
          parts,
          parts.texts.map((t) => estimateText(t, family)),
        );
      this.hashed().set(k, est);
      return Promise.resolve(est);
    }
    const p = this.counter
      .countTexts(family, parts.texts)
      .catch(() => parts.texts.map((t) => estimateText(t, family)))
      .then((counts) => {
        this.inflight.delete(k);
        const c = this.combine(hash, family, parts, counts);
        const prev = this.hashed().get(k);
        if (prev?.exact && !c.exact) return prev;
        this.hashed().set(k, c);
        if (c.exact) this._onDidCount.fire(c);
        else this.settled.add(k);
        return c;
      });
    this.inflight.set(k, p);
    return p;
  }

  private combine(hash: string, family: TokenizerFamily, parts: MessageParts, counts: Parameters<typeof combineCounts>[1]): MessageCount {
    return { hash, family, ...combineCounts(parts, counts, family) };
  }
}

/** The memo key of free texts counted as one unit. */
function textsHash(texts: readonly string[], fixed: number): string {
  const h = createHash('sha1');
  for (const t of texts) h.update(t).update('\u0000');
  return `t${fixed}:${h.digest('hex')}`;
}
