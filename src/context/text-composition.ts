/**
 * A safe token estimate from a text's composition, for whenever the tokenizer's count is not there
 * yet (before the token worker answers) or only extrapolated (very long texts are sampled).
 *
 * Bytes/4 is not a floor: measured against exact o200k on real public text it under-counts base64
 * by 60 %, hex 57 %, minified JS 39 %, JSON and logs ~33 %, Chinese docs up to 61 %. This estimate
 * walks the text in runs shaped like the tokenizer's pre-tokens (words, digit groups, punctuation,
 * whitespace, single non-ASCII characters) and charges each run by its Unicode class, with weights
 * set so that it stays at or above the exact o200k count on every class of the corpus in
 * `test/fixtures/corpus` (bench: `count_worst_undercount`). It over-counts ordinary prose by ~15–20 %
 * and code by ~40–60 %, which only lasts until the exact count replaces it. Pure; linear; never throws.
 */

/** What a text mostly is: decides Claude's surcharge and which calibration factor applies. */
export type ContentClass = 'prose' | 'code' | 'structured' | 'dense' | 'cjk' | 'script' | 'emoji';

export const CONTENT_CLASSES: readonly ContentClass[] = ['prose', 'code', 'structured', 'dense', 'cjk', 'script', 'emoji'];

/** Per-run weights in o200k tokens (see the module comment for how they were set). */
const WORD = 1;
/** A word-like run costs one more token per this many letters. */
const WORD_LETTERS_PER_EXTRA = 9;
const ALNUM_MIXED = 0.8;
const DIGITS_PER_TOKEN = 3;
const PUNCT = 0.85;
const LONE_SPACE = 0.2;
const WHITESPACE_PER_EXTRA = 16;
const CJK = 1.3;
const SCRIPT = 0.6;
const SYMBOL = 2;
const ASTRAL = 3;
const INVALID = 3;

/** The composition of a text: estimated tokens by where they come from. */
export interface Composition {
  /** Safe (upper-bound) o200k estimate of the whole text. */
  tokens: number;
  /** Estimated tokens of word-like ASCII runs (prose, identifiers). */
  words: number;
  /** …of mixed letters and digits (base64, hex, hashes, minified names). */
  mixed: number;
  digits: number;
  punct: number;
  whitespace: number;
  cjk: number;
  /** Other non-ASCII letters (Cyrillic, Greek, Arabic, Devanagari, accented Latin…). */
  script: number;
  /** Symbols, emoji, variation selectors and joiners. */
  emoji: number;
  /** Control characters, lone surrogates, U+FFFD (random bytes decoded as text). */
  invalid: number;
}

/**
 * Measures a text's composition in one linear pass over its UTF-16 code units. The runs are the ones of
 * the pattern `[A-Za-z0-9]+|\s+|[!-/:-@[-`{-~]+|\p{Cc}|[^\p{ASCII}]` (Unicode mode), walked by hand
 * because the host counts a 1 MB tool result with this before the worker answers: a scan without
 * regular expressions or substrings takes a fraction of the regex walk's ~35 ms per MB of prose.
 * `test/unit/context-composition-scan.test.ts` checks it against that regex walk, figure for figure.
 */
export function composition(text: string): Composition {
  const c: Composition = { tokens: 0, words: 0, mixed: 0, digits: 0, punct: 0, whitespace: 0, cjk: 0, script: 0, emoji: 0, invalid: 0 };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const first = text.charCodeAt(i);
    if (isAlnum(first)) {
      let j = i;
      let digits = 0;
      let letters = 0;
      for (; j < n; j++) {
        const k = text.charCodeAt(j);
        if (isDigit(k)) digits++;
        else if (isLetter(k)) letters++;
        else break;
      }
      if (letters === 0) c.digits += Math.ceil((j - i) / DIGITS_PER_TOKEN);
      else if (digits === 0) letterRun(text, i, j, c);
      else c.mixed += Math.max(1, (j - i) * ALNUM_MIXED);
      i = j;
    } else if (isSpace(first)) {
      // A run of whitespace (ASCII or Unicode). Started by an ASCII one it is charged as whitespace; a
      // run started by a non-ASCII space is charged by that first code point, like any non-ASCII character.
      let j = i + 1;
      let newline = first === 0x0a;
      for (; j < n; j++) {
        const k = text.charCodeAt(j);
        if (!isSpace(k)) break;
        if (k === 0x0a) newline = true;
      }
      if (first < 0x80) {
        // A lone space usually joins the next word; before a digit the tokenizer keeps it apart.
        if (j - i === 1 && first === 0x20) c.whitespace += isDigit(text.charCodeAt(j)) ? 1 : LONE_SPACE;
        else c.whitespace += 1 + (newline && text.charCodeAt(j - 1) !== 0x0a ? 1 : 0) + Math.floor((j - i) / WHITESPACE_PER_EXTRA);
      } else nonAscii(first, c);
      i = j;
    } else if (first < 0x80) {
      if (first < 0x20 || first === 0x7f) {
        c.invalid += INVALID;
        i++;
      } else {
        let j = i + 1;
        while (j < n && isPunct(text.charCodeAt(j))) j++;
        c.punct += (j - i) * PUNCT;
        i = j;
      }
    } else {
      // One code point: a surrogate pair counts once, a lone surrogate on its own.
      const cp = text.codePointAt(i)!;
      nonAscii(cp, c);
      i += cp > 0xffff ? 2 : 1;
    }
  }
  c.tokens = Math.ceil(c.words + c.mixed + c.digits + c.punct + c.whitespace + c.cjk + c.script + c.emoji + c.invalid);
  return c;
}

/**
 * A run of ASCII letters, split like the tokenizer does at capitals (camelCase, PascalCase, ACRONYMs):
 * an uppercase run not followed by a lowercase letter is one piece; otherwise one optional capital and
 * the lowercase letters after it. A piece like a word (with a vowel) costs a word; other pieces are mixed.
 */
function letterRun(text: string, from: number, to: number, c: Composition): void {
  let p = from;
  while (p < to) {
    let q = p;
    while (q < to && isUpper(text.charCodeAt(q))) q++;
    const lowerAfter = q < to; // in a letters-only run, what follows an uppercase run is lowercase
    if (q > p && !lowerAfter) {
      c.mixed += Math.max(1, (q - p) * ALNUM_MIXED);
      p = q;
      continue;
    }
    if (q - p > 1) {
      c.mixed += Math.max(1, (q - 1 - p) * ALNUM_MIXED);
      p = q - 1;
    }
    // [A-Z]?[a-z]+ from p
    let r = q;
    let vowel = false;
    for (; r < to; r++) {
      const k = text.charCodeAt(r);
      if (isUpper(k)) break;
      if (isVowel(k)) vowel = true;
    }
    if (vowel) c.words += WORD + Math.floor((r - p) / WORD_LETTERS_PER_EXTRA);
    else c.mixed += Math.max(1, (r - p) * ALNUM_MIXED);
    p = r;
  }
}

function nonAscii(cp: number, c: Composition): void {
  if (cp > 0xffff) c.emoji += ASTRAL;
  else if (cp === 0xfffd || (cp >= 0xd800 && cp <= 0xdfff)) c.invalid += INVALID;
  else if ((cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0x200d || (cp >= 0x2000 && cp < 0x2e80)) c.emoji += SYMBOL;
  else if (cp >= 0x2e80 && cp <= 0xffef) c.cjk += CJK;
  else if (isSpace(cp)) c.whitespace += 1;
  else c.script += SCRIPT;
}

/**
 * The class a text's tokens mostly come from. Code and structured text are told apart from prose by
 * their share of punctuation; `dense` is mixed alphanumerics (base64, hex, minified names, random).
 */
export function contentClassOf(c: Composition): ContentClass {
  const total = c.tokens;
  if (total === 0) return 'prose';
  if (c.cjk >= 0.3 * total) return 'cjk';
  if (c.emoji + c.invalid >= 0.3 * total) return 'emoji';
  if (c.script >= 0.3 * total) return 'script';
  if (c.mixed >= 0.3 * total) return 'dense';
  if (c.digits + c.punct >= 0.45 * total) return 'structured';
  if (c.punct >= 0.25 * total) return 'code';
  return 'prose';
}

/** The class of several texts together (e.g. one message): the class of the largest share. */
export function contentClassOfTexts(texts: readonly string[]): ContentClass {
  const byClass = new Map<ContentClass, number>();
  for (const t of texts) {
    if (!t) continue;
    const c = composition(t);
    const k = contentClassOf(c);
    byClass.set(k, (byClass.get(k) ?? 0) + c.tokens);
  }
  let best: ContentClass = 'prose';
  let most = -1;
  for (const [k, v] of byClass) if (v > most) [best, most] = [k, v];
  return best;
}

function isAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
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

/** JavaScript's `\s`: ASCII tab, line feed, vertical tab, form feed, carriage return, space, and the Unicode spaces. */
function isSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
