/**
 * An exact BPE token counter whose cost stays near-linear whatever the text is.
 *
 * A tiktoken-style tokenizer cuts a text into pre-tokens with its pattern and merges each pre-token's
 * bytes on its own, always the adjacent pair of lowest rank first (the leftmost on a tie), until no pair
 * is in the vocabulary. So the count of a text is the sum of its pre-tokens' counts, and counting
 * pre-token by pre-token is counting in chunks at boundaries the tokenizer itself respects: nothing is
 * sampled or extrapolated, and the figure is the tokenizer's. js-tiktoken re-scans every pair after each
 * merge (cubic in a pre-token's length: a 10 KB run of one character takes minutes); here a short
 * pre-token keeps the ranks of its pairs and updates only the two a merge changes, and a long one keeps
 * its pairs in a heap, O(n log n). `context-exact-counter.test.ts` checks the counts equal js-tiktoken's
 * on every slice and file of the real-text corpus. Meant for the token worker; never throws.
 */

/** The part of a js-tiktoken ranks module this counter reads. */
export interface BpeRanks {
  /** The pre-token pattern (a JavaScript regular expression source, used with the `u` flag). */
  pat_str: string;
  /** Lines of `<marker> <first rank> <base64 token>…`, ranks consecutive within a line. */
  bpe_ranks: string;
}

export interface ExactCounter {
  /** The number of tokens `text` encodes to (special-token text counts as plain text). */
  count(text: string): number;
}

/** Pre-tokens shorter than this (in bytes) merge by rescanning their pair ranks; longer ones use a heap. */
const HEAP_FROM_BYTES = 128;
/** Pre-tokens up to this many characters are memoized (most repeat: words, indentation, punctuation). */
const MEMO_CHARS = 48;
const MEMO_LIMIT = 200_000;
const NONE = 0x7fffffff;
/** Starts are packed below this in the heap's keys (2^23). */
const START_RANGE = 8_388_608;

export function createExactCounter(source: BpeRanks): ExactCounter {
  const ranks = parseRanks(source.bpe_ranks);
  const pattern = new RegExp(source.pat_str, 'gu');
  const memo = new Map<string, number>();
  const rankOf = (bytes: string, from: number, to: number): number => ranks.get(bytes.substring(from, to)) ?? NONE;

  const countPiece = (piece: string): number => {
    const cached = memo.get(piece);
    if (cached !== undefined) return cached;
    const bytes = latin1Bytes(piece);
    const n = ranks.has(bytes)
      ? 1
      : bytes.length < HEAP_FROM_BYTES
        ? mergeByScan(bytes, rankOf)
        : // A single pre-token of 8 MB (no message is that large) is charged its bytes, a token's minimum size.
          bytes.length >= START_RANGE
          ? bytes.length
          : mergeByHeap(bytes, rankOf);
    if (piece.length <= MEMO_CHARS) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(piece, n);
    }
    return n;
  };

  return {
    count(text: string): number {
      let tokens = 0;
      pattern.lastIndex = 0;
      let end = 0;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        if (m[0].length === 0) {
          pattern.lastIndex++;
          continue;
        }
        if (m.index > end) tokens += countPiece(text.slice(end, m.index)); // text the pattern skipped (none in practice)
        tokens += countPiece(m[0]);
        end = m.index + m[0].length;
      }
      if (end < text.length) tokens += countPiece(text.slice(end));
      return tokens;
    },
  };
}

/** The rank table keyed by each token's bytes as a latin1 string. */
function parseRanks(bpeRanks: string): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const line of bpeRanks.split('\n')) {
    if (!line) continue;
    const fields = line.split(' ');
    const first = Number.parseInt(fields[1], 10);
    for (let k = 2; k < fields.length; k++) ranks.set(atob(fields[k]), first + k - 2);
  }
  return ranks;
}

/** The UTF-8 bytes of `piece` as a latin1 string (an ASCII piece is its own bytes). */
function latin1Bytes(piece: string): string {
  for (let i = 0; i < piece.length; i++) if (piece.charCodeAt(i) >= 0x80) return Buffer.from(piece, 'utf8').toString('latin1');
  return piece;
}

type RankOf = (bytes: string, from: number, to: number) => number;

/** Merges a short piece: the parts' starts and the rank of each adjacent pair, updated around each merge. */
function mergeByScan(bytes: string, rankOf: RankOf): number {
  let parts = bytes.length;
  const start = new Int32Array(parts + 1);
  for (let i = 0; i <= parts; i++) start[i] = i;
  const rank = new Int32Array(parts);
  for (let i = 0; i < parts - 1; i++) rank[i] = rankOf(bytes, start[i], start[i + 2]);
  rank[parts - 1] = NONE;
  while (parts > 1) {
    let best = NONE;
    let at = -1;
    for (let i = 0; i < parts - 1; i++) {
      if (rank[i] < best) {
        best = rank[i];
        at = i;
      }
    }
    if (at < 0) break;
    // Part `at + 1` joins part `at`.
    start.copyWithin(at + 1, at + 2, parts + 1);
    rank.copyWithin(at + 1, at + 2, parts);
    parts--;
    rank[parts - 1] = NONE;
    rank[at] = at + 1 < parts ? rankOf(bytes, start[at], start[at + 2]) : NONE;
    if (at > 0) rank[at - 1] = rankOf(bytes, start[at - 1], start[at + 1]);
  }
  return parts;
}

/**
 * Merges a long piece with the same rule through a heap of candidate pairs ordered by (rank, start). A
 * candidate records the end of the merged pair; it is stale once its left part is gone or the part after
 * it no longer ends there, and skipped. A live candidate spans the same bytes as the current pair, so it
 * has the current pair's rank; among equal ranks the smallest start is the leftmost pair, as in the scan.
 */
function mergeByHeap(bytes: string, rankOf: RankOf): number {
  const n = bytes.length;
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const end = new Int32Array(n);
  const alive = new Uint8Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
    end[i] = i + 1;
  }
  const heap = new PairHeap();
  const popped = new Int32Array(2);
  const offer = (left: number) => {
    const right = next[left];
    if (right < 0) return;
    const r = rankOf(bytes, left, end[right]);
    if (r !== NONE) heap.push(r, left, end[right]);
  };
  for (let i = 0; i < n - 1; i++) offer(i);
  let parts = n;
  while (heap.size > 0) {
    heap.pop(popped);
    const left = popped[0];
    const pairEnd = popped[1];
    const right = next[left];
    if (!alive[left] || right < 0 || end[right] !== pairEnd) continue;
    end[left] = pairEnd;
    alive[right] = 0;
    next[left] = next[right];
    if (next[right] >= 0) prev[next[right]] = left;
    parts--;
    offer(left);
    if (prev[left] >= 0) offer(prev[left]);
  }
  return parts;
}

/**
 * A binary min-heap of (rank, start, end) triples, ordered by rank then start. Rank and start are packed
 * into one exact double (`rank · 2^23 + start`: ranks are below 2^18 and a piece's starts below 2^23 bytes
 * — longer pieces are cut by the caller), so a comparison is one number and a swap moves two slots.
 */
class PairHeap {
  private key = new Float64Array(1024);
  private end = new Int32Array(1024);
  size = 0;

  push(rank: number, start: number, end: number): void {
    if (this.size === this.key.length) {
      const key = new Float64Array(this.size * 2);
      key.set(this.key);
      this.key = key;
      const ends = new Int32Array(this.size * 2);
      ends.set(this.end);
      this.end = ends;
    }
    const k = rank * START_RANGE + start;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.key[p] <= k) break;
      this.key[i] = this.key[p];
      this.end[i] = this.end[p];
      i = p;
    }
    this.key[i] = k;
    this.end[i] = end;
  }

  /** Removes the smallest; returns its start and end through `out`. */
  pop(out: Int32Array): void {
    const k0 = this.key[0];
    out[0] = k0 % START_RANGE;
    out[1] = this.end[0];
    const n = --this.size;
    const k = this.key[n];
    const e = this.end[n];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.key[c + 1] < this.key[c]) c++;
      if (this.key[c] >= k) break;
      this.key[i] = this.key[c];
      this.end[i] = this.end[c];
      i = c;
    }
    this.key[i] = k;
    this.end[i] = e;
  }
}
