/**
 * A token counter whose cost is linear in the input whatever the input is.
 *
 * js-tiktoken's BPE merge is quadratic (with a large constant) in the length of one pre-token: a single
 * 10 KB run of one character or of CJK text takes seconds. This counter runs the encoding's own
 * pre-token regex itself and then:
 *  - encodes runs of ordinary (short) pre-tokens in batches with the real encoder (exact);
 *  - cuts long pre-tokens into short chunks (count within ~1–2 % of exact);
 *  - for very long pre-tokens, counts evenly spaced sample chunks exactly and extrapolates by bytes;
 *  - when the estimated work of the whole text exceeds a fixed budget, counts a deterministic,
 *    evenly spaced subset of blocks (separately for ordinary and long pre-tokens) and extrapolates.
 * The result is always at least `ceil(utf8Bytes / 4)`, and an extrapolated (sampled) count is raised to
 * the safe estimate from the text's composition: extrapolating samples under-counted Japanese files by
 * up to 9.5 %, and a sampled count is gated on like an exact one.
 *
 * Synchronous: meant for the token worker and benches, never for the extension host's main thread.
 */
import type { TextCount } from './message-tokens';
import { composition, contentClassOf, type ContentClass } from './text-composition';
import { byteEstimate, splitsSurrogate, utf8Length } from './utf8';

/** The part of js-tiktoken's `Tiktoken` this module uses. */
export interface BpeEncoder {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
}

/** A text's token count. `sampled` is true when part of it was extrapolated rather than encoded. */
export interface BoundedCount {
  /** `max(bpe, ceil(bytes / 4))`: the figure to use. */
  tokens: number;
  /** The tokenizer's count before the byte floor; when sampled, an upper-bound extrapolation. */
  bpe: number;
  sampled: boolean;
  bytes: number;
  /** What the text mostly is (from its composition). */
  contentClass: ContentClass;
}

export interface BoundedCounter {
  /** Bounded, linear-time count (never throws; special-token text is counted as plain text). */
  count(text: string): BoundedCount;
  /** The encoder's own unbounded count; quadratic on long pre-tokens. For fixtures and tests only. */
  exact(text: string): number;
}

/** Tuning knobs; the defaults are what Headroom ships (see bench/context.bench.ts). */
export interface BoundedCounterOptions {
  /** Pre-tokens longer than this many UTF-16 units are cut into chunks of this size. */
  chunkChars?: number;
  /** Pre-tokens longer than this many UTF-8 bytes are sampled instead of chunked end to end. */
  sampleAboveBytes?: number;
  /** Number of chunks counted from a sampled pre-token. */
  sampleChunks?: number;
  /** Work budget per call in cost units (per pre-token: squared byte length + a fixed cost; 1 unit ≈ 0.1 µs). */
  budgetUnits?: number;
  /** Target size of a batch of ordinary pre-tokens. */
  blockBytes?: number;
}

const DEFAULTS: Required<BoundedCounterOptions> = {
  chunkChars: 32,
  sampleAboveBytes: 2048,
  sampleChunks: 16,
  budgetUnits: 500_000,
  blockBytes: 1024,
};

const KIND_NORMAL = 0;
const KIND_LONG = 1;
const MEMO_LIMIT = 8192;
/**
 * Fixed cost of one pre-token in cost units (1 unit ≈ 0.1 µs of js-tiktoken time, measured): encoding
 * a short pre-token costs ~2–5 µs whatever its length, a long one grows with its squared byte length.
 */
const PIECE_COST = 40;
/** Blocks not counted are extrapolated at no less than (1 − this) of their composition estimate. */
const RATIO_MARGIN = 0.25;
/** …and at this much over the highest ratio seen in the counted ones (few samples miss the densest block). */
const SAMPLE_MARGIN = 0.1;

/** Builds a bounded counter over an encoder and its pre-token regex source (`ranks.pat_str`). */
export function createBoundedCounter(encoder: BpeEncoder, patStr: string, options: BoundedCounterOptions = {}): BoundedCounter {
  const opt = { ...DEFAULTS, ...options };
  const pattern = new RegExp(patStr, 'gu');
  const chunkMemo = new Map<string, number>();

  const encodeLength = (s: string): number => (s.length === 0 ? 0 : encoder.encode(s, [], []).length);

  const countChunk = (s: string): number => {
    let n = chunkMemo.get(s);
    if (n === undefined) {
      n = encodeLength(s);
      if (chunkMemo.size >= MEMO_LIMIT) chunkMemo.clear();
      chunkMemo.set(s, n);
    }
    return n;
  };

  /** A long pre-token's count: `[mean, upper]` (equal unless sampled; `upper` extrapolates the densest sample). */
  const countLongPiece = (text: string, start: number, end: number, bytes: number, forceSample: boolean): [number, number] => {
    if (!forceSample && bytes <= opt.sampleAboveBytes) {
      let tokens = 0;
      for (let i = start; i < end;) {
        const to = chunkEnd(text, i, end, opt.chunkChars);
        tokens += countChunk(text.slice(i, to));
        i = to;
      }
      return [tokens, tokens];
    }
    // Evenly spaced sample chunks, extrapolated by bytes.
    const chars = end - start;
    const n = Math.max(1, Math.min(opt.sampleChunks, Math.floor(chars / opt.chunkChars)));
    const stride = Math.floor(chars / n);
    let sampleTokens = 0;
    let sampleBytes = 0;
    let densest = 0;
    for (let k = 0; k < n; k++) {
      let from = start + k * stride;
      if (splitsSurrogate(text, from)) from++;
      const to = chunkEnd(text, from, end, opt.chunkChars);
      const t = countChunk(text.slice(from, to));
      const b = utf8Length(text, from, to);
      sampleTokens += t;
      sampleBytes += b;
      if (b > 0) densest = Math.max(densest, t / b);
    }
    if (sampleBytes === 0) return [0, 0];
    return [Math.ceil((sampleTokens * bytes) / sampleBytes), Math.ceil(densest * bytes)];
  };

  /**
   * Pass 2: counts every block, or an evenly spaced subset per kind when the estimated work is over
   * budget (`stride` > 1), extrapolating the rest. `upper` is the sampled count's upper bound.
   */
  const countBlocks = (text: string, blocks: Blocks): { tokens: number; upper: number; stride: number } => {
    const { starts, ends, bytesOf, costs, kinds } = blocks;
    let totalCost = 0;
    for (const c of costs) totalCost += c;
    const stride = totalCost <= opt.budgetUnits ? 1 : Math.ceil(totalCost / opt.budgetUnits);
    const seen = [0, 0];
    const kindBytes = [0, 0];
    const sampledBytes = [0, 0];
    const sampledTokens = [0, 0];
    let upper = 0;
    // When sampling, each block's composition estimate (`text-composition.ts`) is what the blocks not
    // counted are extrapolated from: at the highest exact/composition ratio of the counted ones, so a
    // sampled count stays an upper bound (extrapolating by bytes under-counted Japanese by 9.5 %).
    const maxRatio = [0, 0];
    const uncountedComposition = [0, 0];
    for (let i = 0; i < starts.length; i++) {
      const kind = kinds[i];
      kindBytes[kind] += bytesOf[i];
      const counted = seen[kind]++ % stride === 0;
      const blockComposition = stride > 1 ? composition(text.slice(starts[i], ends[i])).tokens : 0;
      if (!counted) {
        uncountedComposition[kind] += blockComposition;
        continue;
      }
      const [tokens, blockUpper] =
        kind === KIND_NORMAL
          ? [encodeLength(text.slice(starts[i], ends[i])), -1]
          : countLongPiece(text, starts[i], ends[i], bytesOf[i], stride > 1);
      const high = blockUpper < 0 ? tokens : blockUpper;
      sampledTokens[kind] += tokens;
      sampledBytes[kind] += bytesOf[i];
      upper += high;
      if (blockComposition > 0) maxRatio[kind] = Math.max(maxRatio[kind], high / blockComposition);
    }
    let tokens = 0;
    for (const kind of [KIND_NORMAL, KIND_LONG]) {
      if (sampledBytes[kind] === 0) continue;
      tokens += stride === 1 ? sampledTokens[kind] : Math.ceil((sampledTokens[kind] * kindBytes[kind]) / sampledBytes[kind]);
      upper += Math.ceil(uncountedComposition[kind] * Math.max(maxRatio[kind] * (1 + SAMPLE_MARGIN), 1 - RATIO_MARGIN));
    }
    return { tokens, upper, stride };
  };

  const count = (text: string): BoundedCount => {
    if (text.length === 0) return { tokens: 0, bpe: 0, sampled: false, bytes: 0, contentClass: 'prose' };
    const blocks = splitBlocks(text, pattern, opt);
    const { tokens, upper, stride } = countBlocks(text, blocks);
    const { kinds, bytesOf, totalBytes } = blocks;
    const sampled = stride > 1 || kinds.some((k, i) => k === KIND_LONG && bytesOf[i] > opt.sampleAboveBytes);
    const comp = composition(text);
    const bpe = sampled ? Math.max(tokens, Math.ceil(upper)) : tokens;
    return { tokens: Math.max(bpe, byteEstimate(totalBytes)), bpe, sampled, bytes: totalBytes, contentClass: contentClassOf(comp) };
  };

  return { count, exact: (text) => encodeLength(text) };
}

/** The end of the chunk of `text[from, end)` that starts at `from`, never splitting a surrogate pair. */
function chunkEnd(text: string, from: number, end: number, chunkChars: number): number {
  let to = Math.min(end, from + chunkChars);
  if (to < end && splitsSurrogate(text, to)) to++;
  return to;
}

/**
 * A text cut into blocks (parallel arrays, one entry per block): runs of ordinary pre-tokens batched up
 * to `blockBytes`, and single long pre-tokens, each with its UTF-8 bytes and estimated encoding cost.
 */
interface Blocks {
  starts: number[];
  ends: number[];
  bytesOf: number[];
  costs: number[];
  kinds: number[];
  totalBytes: number;
}

/** Pass 1: splits `text` into blocks with the encoding's pre-token regex (`pattern`, global). */
function splitBlocks(text: string, pattern: RegExp, opt: Required<BoundedCounterOptions>): Blocks {
  const starts: number[] = [];
  const ends: number[] = [];
  const bytesOf: number[] = [];
  const costs: number[] = [];
  const kinds: number[] = [];
  let blockStart = 0;
  let blockBytes = 0;
  let blockCost = 0;
  let totalBytes = 0;
  const flush = (at: number) => {
    if (at > blockStart) {
      starts.push(blockStart);
      ends.push(at);
      bytesOf.push(blockBytes);
      costs.push(blockCost);
      kinds.push(KIND_NORMAL);
    }
    blockStart = at;
    blockBytes = 0;
    blockCost = 0;
  };
  const addPiece = (s: number, e: number) => {
    const b = utf8Length(text, s, e);
    totalBytes += b;
    if (e - s > opt.chunkChars) {
      flush(s);
      starts.push(s);
      ends.push(e);
      bytesOf.push(b);
      const perChunk = (b / (e - s)) * opt.chunkChars;
      costs.push(b > opt.sampleAboveBytes ? opt.sampleChunks * perChunk * perChunk : b * perChunk);
      kinds.push(KIND_LONG);
      blockStart = e;
      return;
    }
    blockBytes += b;
    blockCost += b * b + PIECE_COST;
    if (blockBytes >= opt.blockBytes) flush(e);
  };
  pattern.lastIndex = 0;
  let pos = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    if (m[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    if (m.index > pos) addPiece(pos, m.index); // text the regex skipped (should not happen)
    addPiece(m.index, m.index + m[0].length);
    pos = m.index + m[0].length;
  }
  if (pos < text.length) addPiece(pos, text.length);
  flush(text.length);
  return { starts, ends, bytesOf, costs, kinds, totalBytes };
}

/** A bounded count as the ledger takes it (what the token worker sends back). */
export function toTextCount(c: BoundedCount): TextCount {
  return { bpe: c.bpe, bytes: c.bytes, source: 'tokenizer', sampled: c.sampled, contentClass: c.contentClass };
}
