/**
 * The safe estimate of a text's tokens in each tokenizer family, from its composition
 * (`text-composition.ts`) and the weights fitted on the real-text corpus (`estimate-weights.ts`), and the
 * content class it mostly is. The weights are a linear program's answer: the smallest mean over-count
 * such that every 4 KiB slice of the corpus is estimated at least 3 % above its exact count
 * (`test/fixtures/context/fit-estimate-weights.py`). A script the corpus does not have is charged at
 * least what each character costs alone. Pure; never throws.
 */
import { COST_FAMILIES } from './char-table';
import { ESTIMATE_WEIGHTS } from './estimate-weights';
import {
  ASCII_FEATURES,
  F_ASTRAL,
  F_CAPS,
  F_CONTROL,
  F_DIGIT_CHARS,
  F_DIGIT_GROUP,
  F_INDENT,
  F_MIXED_CHARS,
  F_MIXED_RUN,
  F_NEWLINE_RUN,
  F_PUNCT,
  F_PUNCT_CHARS,
  F_SPACE_CHARS,
  F_SPACE_DIGIT,
  F_SPACE_RUN,
  F_WORD,
  G_RARE,
  composition,
  groupBase,
  type Composition,
  type ContentClass,
} from './text-composition';
import { SCRIPT_CJK_PUNCT, SCRIPT_GROUPS, SCRIPT_HAN, SCRIPT_HANGUL, SCRIPT_KANA, SCRIPT_SYMBOL } from './script-groups';

/** A family the estimate knows (the same names as `TokenizerFamily`). */
export type EstimateFamily = (typeof COST_FAMILIES)[number];

/** Per group, the counts a family's weights read: chars, runs, marks, mark runs, then its own rare cost. */
const GROUP_WEIGHTS = G_RARE + 1;
export const FAMILY_FEATURES = ASCII_FEATURES + (SCRIPT_GROUPS - 1) * GROUP_WEIGHTS;

/** The composition counts one family's weights apply to (the other families' rare costs left out). */
export function familyCounts(c: Composition, family: EstimateFamily): Float64Array {
  const k = COST_FAMILIES.indexOf(family);
  const v = new Float64Array(FAMILY_FEATURES);
  v.set(c.counts.subarray(0, ASCII_FEATURES));
  for (let g = 1; g < SCRIPT_GROUPS; g++) {
    const from = groupBase(g);
    const to = ASCII_FEATURES + (g - 1) * GROUP_WEIGHTS;
    for (let j = 0; j < G_RARE; j++) v[to + j] = c.counts[from + j];
    v[to + G_RARE] = c.counts[from + G_RARE + k];
  }
  return v;
}

/** The safe (upper-bound) estimate of a text's tokens in `family`. */
export function estimateTokens(c: Composition, family: EstimateFamily): number {
  const w = ESTIMATE_WEIGHTS[family];
  const k = COST_FAMILIES.indexOf(family);
  let sum = 0;
  for (let j = 0; j < ASCII_FEATURES; j++) sum += w[j] * c.counts[j];
  for (let g = 1; g < SCRIPT_GROUPS; g++) {
    const from = groupBase(g);
    const to = ASCII_FEATURES + (g - 1) * GROUP_WEIGHTS;
    for (let j = 0; j < G_RARE; j++) sum += w[to + j] * c.counts[from + j];
    sum += w[to + G_RARE] * c.counts[from + G_RARE + k];
  }
  return Math.ceil(sum);
}

/** Which share of the o200k estimate each kind of text makes up, for `contentClassOf`. */
function shares(c: Composition): Record<'words' | 'mixed' | 'digits' | 'punct' | 'cjk' | 'script' | 'emoji', number> & { total: number } {
  const w = ESTIMATE_WEIGHTS.o200k;
  const part = (from: number, to: number) => {
    let s = 0;
    for (let j = from; j < to; j++) s += w[j] * c.counts[j];
    return s;
  };
  const group = (g: number) => {
    const from = groupBase(g);
    const to = ASCII_FEATURES + (g - 1) * GROUP_WEIGHTS;
    let s = w[to + G_RARE] * c.counts[from + G_RARE];
    for (let j = 0; j < G_RARE; j++) s += w[to + j] * c.counts[from + j];
    return s;
  };
  const out = {
    words: part(F_WORD, F_CAPS + 1),
    mixed: part(F_MIXED_RUN, F_MIXED_CHARS + 1),
    digits: part(F_DIGIT_GROUP, F_DIGIT_CHARS + 1) + part(F_SPACE_DIGIT, F_SPACE_DIGIT + 1),
    punct: part(F_PUNCT, F_PUNCT_CHARS + 1),
    cjk: group(SCRIPT_HAN) + group(SCRIPT_KANA) + group(SCRIPT_HANGUL) + group(SCRIPT_CJK_PUNCT),
    script: 0,
    emoji: part(F_ASTRAL, F_ASTRAL + 1) + part(F_CONTROL, F_CONTROL + 1) + group(SCRIPT_SYMBOL),
    total: 0,
  };
  for (let g = 1; g < SCRIPT_GROUPS; g++) {
    if (g !== SCRIPT_HAN && g !== SCRIPT_KANA && g !== SCRIPT_HANGUL && g !== SCRIPT_CJK_PUNCT && g !== SCRIPT_SYMBOL)
      out.script += group(g);
  }
  const space = part(F_SPACE_RUN, F_SPACE_CHARS + 1) + part(F_NEWLINE_RUN, F_INDENT + 1);
  out.total = out.words + out.mixed + out.digits + out.punct + out.cjk + out.script + out.emoji + space;
  return out;
}

/**
 * The class a text's tokens mostly come from. Code and structured text are told apart from prose by
 * their share of punctuation; `dense` is mixed alphanumerics (base64, hex, minified names, random).
 */
export function contentClassOf(c: Composition): ContentClass {
  const s = shares(c);
  if (s.total === 0) return 'prose';
  if (s.cjk >= 0.3 * s.total) return 'cjk';
  if (s.emoji >= 0.3 * s.total) return 'emoji';
  if (s.script >= 0.3 * s.total) return 'script';
  if (s.mixed >= 0.3 * s.total) return 'dense';
  if (s.digits + s.punct >= 0.45 * s.total) return 'structured';
  if (s.punct >= 0.25 * s.total) return 'code';
  return 'prose';
}

/** The class of several texts together (e.g. one message): the class of the largest share. */
export function contentClassOfTexts(texts: readonly string[]): ContentClass {
  const byClass = new Map<ContentClass, number>();
  for (const t of texts) {
    if (!t) continue;
    const c = composition(t);
    const k = contentClassOf(c);
    byClass.set(k, (byClass.get(k) ?? 0) + estimateTokens(c, 'o200k'));
  }
  let best: ContentClass = 'prose';
  let most = -1;
  for (const [k, v] of byClass) if (v > most) [best, most] = [k, v];
  return best;
}
