/**
 * The script groups the safe estimate (`text-composition.ts`) charges separately, by Unicode block.
 * Each group's text is tokenized alike within a tokenizer family (similar vocabulary coverage, the same
 * pre-token rules for its letters and marks), and differently from the other groups': o200k splits
 * Hindi into few tokens a word where the legacy Claude tokenizer spends one or more a character.
 * Used by the table generator (`test/fixtures/context/generate-char-table.ts`); at run time the group
 * of a character is read from `char-table.json`. Pure.
 */

export const SCRIPT_NONE = 0;
export const SCRIPT_LATIN = 1;
export const SCRIPT_GREEK = 2;
export const SCRIPT_CYRILLIC = 3;
export const SCRIPT_HEBREW = 4;
export const SCRIPT_ARABIC = 5;
export const SCRIPT_INDIC = 6;
export const SCRIPT_THAI = 7;
export const SCRIPT_SEA = 8;
export const SCRIPT_HANGUL = 9;
export const SCRIPT_KANA = 10;
export const SCRIPT_HAN = 11;
/** CJK punctuation and full-width forms. */
export const SCRIPT_CJK_PUNCT = 12;
/** General punctuation, arrows, box drawing, dingbats and other BMP symbols. */
export const SCRIPT_SYMBOL = 13;
export const SCRIPT_OTHER = 14;
export const SCRIPT_GROUPS = 15;

/** [first, last, group], sorted by first code point. */
const BLOCKS: ReadonlyArray<readonly [number, number, number]> = [
  [0x00a0, 0x00bf, SCRIPT_SYMBOL],
  [0x00c0, 0x024f, SCRIPT_LATIN],
  [0x0250, 0x02ff, SCRIPT_LATIN],
  [0x0300, 0x036f, SCRIPT_LATIN], // combining diacritics
  [0x0370, 0x03ff, SCRIPT_GREEK],
  [0x0400, 0x052f, SCRIPT_CYRILLIC],
  [0x0530, 0x058f, SCRIPT_OTHER], // Armenian
  [0x0590, 0x05ff, SCRIPT_HEBREW],
  [0x0600, 0x06ff, SCRIPT_ARABIC],
  [0x0700, 0x074f, SCRIPT_OTHER], // Syriac
  [0x0750, 0x077f, SCRIPT_ARABIC],
  [0x08a0, 0x08ff, SCRIPT_ARABIC],
  [0x0900, 0x0dff, SCRIPT_INDIC],
  [0x0e00, 0x0eff, SCRIPT_THAI],
  [0x0f00, 0x0fff, SCRIPT_OTHER], // Tibetan
  [0x1000, 0x109f, SCRIPT_SEA], // Myanmar
  [0x10a0, 0x10ff, SCRIPT_OTHER], // Georgian
  [0x1100, 0x11ff, SCRIPT_HANGUL],
  [0x1780, 0x17ff, SCRIPT_SEA], // Khmer
  [0x19e0, 0x19ff, SCRIPT_SEA],
  [0x1c80, 0x1c8f, SCRIPT_CYRILLIC],
  [0x1e00, 0x1eff, SCRIPT_LATIN],
  [0x1f00, 0x1fff, SCRIPT_GREEK],
  [0x2000, 0x2bff, SCRIPT_SYMBOL],
  [0x2c60, 0x2c7f, SCRIPT_LATIN],
  [0x2de0, 0x2dff, SCRIPT_CYRILLIC],
  [0x2e00, 0x2e7f, SCRIPT_SYMBOL],
  [0x2e80, 0x2fdf, SCRIPT_HAN], // radicals
  [0x3000, 0x303f, SCRIPT_CJK_PUNCT],
  [0x3040, 0x30ff, SCRIPT_KANA],
  [0x3100, 0x312f, SCRIPT_HAN], // Bopomofo
  [0x3130, 0x318f, SCRIPT_HANGUL],
  [0x3190, 0x31ef, SCRIPT_HAN],
  [0x31f0, 0x31ff, SCRIPT_KANA],
  [0x3200, 0x33ff, SCRIPT_CJK_PUNCT], // enclosed and compatibility CJK
  [0x3400, 0x4dbf, SCRIPT_HAN],
  [0x4dc0, 0x4dff, SCRIPT_SYMBOL],
  [0x4e00, 0x9fff, SCRIPT_HAN],
  [0xa640, 0xa69f, SCRIPT_CYRILLIC],
  [0xa720, 0xa7ff, SCRIPT_LATIN],
  [0xa960, 0xa97f, SCRIPT_HANGUL],
  [0xa980, 0xa9ff, SCRIPT_SEA],
  [0xaa00, 0xaadf, SCRIPT_SEA],
  [0xab30, 0xab6f, SCRIPT_LATIN],
  [0xac00, 0xd7ff, SCRIPT_HANGUL],
  [0xe000, 0xf8ff, SCRIPT_OTHER], // private use
  [0xf900, 0xfaff, SCRIPT_HAN],
  [0xfb00, 0xfb4f, SCRIPT_HEBREW],
  [0xfb50, 0xfdff, SCRIPT_ARABIC],
  [0xfe00, 0xfe0f, SCRIPT_SYMBOL], // variation selectors
  [0xfe10, 0xfe6f, SCRIPT_CJK_PUNCT],
  [0xfe70, 0xfeff, SCRIPT_ARABIC],
  [0xff00, 0xffef, SCRIPT_CJK_PUNCT],
  [0xfff0, 0xffff, SCRIPT_SYMBOL],
];

/** The group of a BMP code point outside ASCII (ASCII is scanned on its own). */
export function scriptGroupOf(cp: number): number {
  if (cp < 0x80) return SCRIPT_NONE;
  let lo = 0;
  let hi = BLOCKS.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last, group] = BLOCKS[mid];
    if (cp < first) hi = mid - 1;
    else if (cp > last) lo = mid + 1;
    else return group;
  }
  return SCRIPT_OTHER;
}
