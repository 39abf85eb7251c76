/**
 * A safe token estimate from a text's composition, for whenever the tokenizer's count is not there
 * yet (before the token worker answers), in each tokenizer family.
 *
 * Bytes/4 is not a bound: on real public text it under-counts base64 by 60 %, minified JS 39 %, JSON
 * and logs ~33 %, Chinese up to 61 %, and over-counts o200k's Hindi three times. This estimate walks the
 * text once in runs shaped like the tokenizers' pre-tokens — letter pieces (split at capitals), digit
 * runs (cut in groups of three), punctuation runs (a lone one before a word joins it), whitespace runs
 * (a run before a number stays apart, indentation after a newline), letters and marks of each script
 * (where cl100k and the legacy Claude tokenizer split a word at every vowel sign), symbols and astral
 * characters — and adds what each non-ASCII character costs alone in the family's vocabulary (a rare
 * character falls back to its bytes: `char-table.ts`). `estimate-weights.ts` turns these counts into
 * tokens per family, with weights fitted so the estimate stays at or above the exact count of every
 * 4 KiB slice of the real-text corpus (`test/fixtures/corpus`). Pure; linear; never throws.
 */
import { CAT_LETTER, CAT_MARK, CAT_NUMBER, charTable, COST_FAMILIES } from './char-table';
import { SCRIPT_GROUPS } from './script-groups';

/** What a text mostly is: decides which calibration factor applies. */
export type ContentClass = 'prose' | 'code' | 'structured' | 'dense' | 'cjk' | 'script' | 'emoji';

export const CONTENT_CLASSES: readonly ContentClass[] = ['prose', 'code', 'structured', 'dense', 'cjk', 'script', 'emoji'];

// ASCII features (indexes into `Composition.counts`).
/** Letter pieces (`[A-Z]?[a-z]+` or an uppercase run), and their letters beyond 5 and beyond 10. */
export const F_WORD = 0;
export const F_WORD_PAST5 = 1;
export const F_WORD_PAST10 = 2;
/** Pieces without a vowel (rarely one token) and letters of all-capital pieces. */
export const F_NO_VOWEL = 3;
export const F_CAPS = 4;
/** Runs mixing letters and digits (base64, hex, hashes) and their characters. */
export const F_MIXED_RUN = 5;
export const F_MIXED_CHARS = 6;
/** Digit runs: groups of three (o200k and cl100k cut them so), runs, digits. */
export const F_DIGIT_GROUP = 7;
export const F_DIGIT_RUN = 8;
export const F_DIGIT_CHARS = 9;
/** A lone space before a digit: its own pre-token (it joins a word or punctuation otherwise). */
export const F_SPACE_DIGIT = 10;
/** A lone space before a letter outside ASCII: joins it, but `␠漢` is rarely in a vocabulary. */
export const F_SPACE_SCRIPT = 22;
/** Whitespace runs without a newline (two or more characters, or a lone tab) and their characters. */
export const F_SPACE_RUN = 11;
export const F_SPACE_CHARS = 12;
/** Whitespace runs with a newline, the newlines, and the indentation after the last one. */
export const F_NEWLINE_RUN = 13;
export const F_NEWLINES = 14;
export const F_INDENT = 15;
/**
 * Punctuation: a lone character, a lone one joining the next word (not after a space, which takes it
 * into its own pre-token instead), longer runs and their characters.
 */
export const F_PUNCT = 16;
export const F_PUNCT_WORD = 17;
export const F_PUNCT_RUN = 18;
export const F_PUNCT_CHARS = 19;
/** Control characters, lone surrogates. */
export const F_CONTROL = 20;
/** Characters outside the BMP (emoji, rare CJK). */
export const F_ASTRAL = 21;
export const ASCII_FEATURES = 23;

// Per script group (`script-groups.ts`, groups 1…14), from `groupBase(g)`.
export const G_CHARS = 0;
export const G_RUNS = 1;
export const G_MARKS = 2;
/** A mark right after a letter: where a pattern without `\p{M}` in its letters cuts the word. */
export const G_MARK_RUNS = 3;
/** Σ (tokens of the character alone − 1), one slot per family in `COST_FAMILIES` order. */
export const G_RARE = 4;
export const GROUP_FEATURES = G_RARE + COST_FAMILIES.length;
export const FEATURES = ASCII_FEATURES + (SCRIPT_GROUPS - 1) * GROUP_FEATURES;

export function groupBase(group: number): number {
  return ASCII_FEATURES + (group - 1) * GROUP_FEATURES;
}

// Module-level copies: the loop reads them per character, and an imported binding can be a getter.
const LETTER = CAT_LETTER;
const MARK = CAT_MARK;
const NUMBER = CAT_NUMBER;

/** `groupBase` of each group (group 0, outside every block, counts as the last group). */
const GROUP_BASE = Int32Array.from({ length: 16 }, (_, g) => groupBase(g === 0 || g >= SCRIPT_GROUPS ? SCRIPT_GROUPS - 1 : g));

/** A text's composition: the counts of what its tokens come from (see the F_ and G_ indexes). */
export interface Composition {
  counts: Float64Array;
}

/**
 * Measures a text's composition in one linear pass over its UTF-16 code units, without regular
 * expressions or substrings: the host measures a 1 MB tool result with this before the worker answers.
 */
export function composition(text: string): Composition {
  const t = charTable();
  const entries = t.entry;
  const costTable = t.costs;
  const f = new Float64Array(FEATURES);
  const n = text.length;
  // The group of the script run in progress (0: none), and whether its last character was a letter.
  let runGroup = 0;
  let lastWasLetter = false;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      runGroup = 0;
      if (isLetter(c) || isDigit(c)) i = alnumRun(text, i, f);
      else if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) i = spaceRun(text, i, f);
      else if (c < 0x20 || c === 0x7f) {
        f[F_CONTROL]++;
        i++;
      } else {
        let j = i + 1;
        while (j < n && isPunct(text.charCodeAt(j))) j++;
        if (j - i > 1) {
          f[F_PUNCT_RUN]++;
          f[F_PUNCT_CHARS] += j - i;
        } else if (j < n && (i === 0 || text.charCodeAt(i - 1) !== 0x20) && startsWord(entries, text.charCodeAt(j))) f[F_PUNCT_WORD]++;
        else f[F_PUNCT]++;
        i = j;
      }
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      runGroup = 0;
      const d = text.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        f[F_ASTRAL]++;
        i += 2;
      } else {
        f[F_CONTROL]++;
        i++;
      }
      continue;
    }
    const e = entries[c];
    const group = e & 15;
    const cat = (e >> 4) & 3;
    const base = GROUP_BASE[group];
    f[base + G_CHARS]++;
    const costs = costTable[c];
    if (costs !== 0) {
      f[base + G_RARE] += costs & 3;
      f[base + G_RARE + 1] += (costs >> 2) & 3;
      f[base + G_RARE + 2] += costs >> 4;
    }
    if (cat === LETTER || cat === MARK || cat === NUMBER) {
      if (runGroup !== group) f[base + G_RUNS]++;
      if (cat === MARK) {
        f[base + G_MARKS]++;
        if (lastWasLetter) f[base + G_MARK_RUNS]++;
      }
      runGroup = group;
      lastWasLetter = cat !== MARK;
    } else runGroup = 0;
    i++;
  }
  return { counts: f };
}

/** A run of ASCII letters and digits from `i`; returns where it ends. */
function alnumRun(text: string, i: number, f: Float64Array): number {
  const n = text.length;
  let j = i;
  let digits = 0;
  let letters = 0;
  for (; j < n; j++) {
    const k = text.charCodeAt(j);
    if (isDigit(k)) digits++;
    else if (isLetter(k)) letters++;
    else break;
  }
  if (letters === 0) {
    f[F_DIGIT_GROUP] += Math.ceil(digits / 3);
    f[F_DIGIT_RUN]++;
    f[F_DIGIT_CHARS] += digits;
  } else if (digits === 0) letterRun(text, i, j, f);
  else {
    f[F_MIXED_RUN]++;
    f[F_MIXED_CHARS] += j - i;
  }
  return j;
}

/**
 * A run of ASCII letters, split like the tokenizers do at capitals (camelCase, PascalCase, ACRONYMs):
 * an uppercase run not followed by a lowercase letter is one piece; otherwise one optional capital and
 * the lowercase letters after it.
 */
function letterRun(text: string, from: number, to: number, f: Float64Array): void {
  let p = from;
  while (p < to) {
    let q = p;
    while (q < to && isUpper(text.charCodeAt(q))) q++;
    if (q > p && q === to) {
      piece(p, q, false, true, f);
      return;
    }
    if (q - p > 1) {
      piece(p, q - 1, false, true, f);
      p = q - 1;
    }
    let r = q;
    let vowel = false;
    for (; r < to; r++) {
      const k = text.charCodeAt(r);
      if (isUpper(k)) break;
      if (isVowel(k)) vowel = true;
    }
    piece(p, r, vowel, false, f);
    p = r;
  }
}

function piece(from: number, to: number, vowel: boolean, caps: boolean, f: Float64Array): void {
  const len = to - from;
  f[F_WORD]++;
  if (len > 5) f[F_WORD_PAST5] += len - 5;
  if (len > 10) f[F_WORD_PAST10] += len - 10;
  if (caps) {
    if (len > 1) f[F_CAPS] += len;
  } else if (!vowel) f[F_NO_VOWEL]++;
}

/** A run of ASCII whitespace from `i`; returns where it ends. */
function spaceRun(text: string, i: number, f: Float64Array): number {
  const n = text.length;
  let j = i;
  let newlines = 0;
  let lastNewline = -1;
  for (; j < n; j++) {
    const k = text.charCodeAt(j);
    if (k === 0x0a) {
      newlines++;
      lastNewline = j;
    } else if (!(k === 0x20 || (k >= 0x09 && k <= 0x0d))) break;
  }
  if (newlines > 0) {
    f[F_NEWLINE_RUN]++;
    f[F_NEWLINES] += newlines;
    f[F_INDENT] += j - lastNewline - 1;
  } else if (j - i === 1 && text.charCodeAt(i) === 0x20) {
    const next = j < n ? text.charCodeAt(j) : 0;
    if (isDigit(next)) f[F_SPACE_DIGIT]++;
    else if (next >= 0x80) f[F_SPACE_SCRIPT]++;
  } else {
    f[F_SPACE_RUN]++;
    f[F_SPACE_CHARS] += j - i;
  }
  return j;
}

/** True when a pre-token starting at this character can take a punctuation character before it. */
function startsWord(entry: Uint8Array, code: number): boolean {
  if (code < 0x80) return isLetter(code);
  if (code >= 0xd800 && code <= 0xdfff) return false;
  return ((entry[code] >> 4) & 3) === LETTER;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isUpper(code: number): boolean {
  return code >= 0x41 && code <= 0x5a;
}

function isLetter(code: number): boolean {
  return isUpper(code) || (code >= 0x61 && code <= 0x7a);
}

/** a e i o u y, lowercase only (a capital starts a piece and is never its vowel). */
function isVowel(code: number): boolean {
  return code === 0x61 || code === 0x65 || code === 0x69 || code === 0x6f || code === 0x75 || code === 0x79;
}

function isPunct(code: number): boolean {
  return (
    (code >= 0x21 && code <= 0x2f) || (code >= 0x3a && code <= 0x40) || (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0x7e)
  );
}
