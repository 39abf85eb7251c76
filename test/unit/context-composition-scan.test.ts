/**
 * The composition scan (`src/context/text-composition.ts`) walks the text by hand for speed; its weights
 * were calibrated with a regular-expression walk. This checks the two agree figure for figure (the same
 * sums in the same order, so exactly) on the whole corpus and on random text built from the characters
 * where a hand scanner most easily goes wrong: Unicode spaces, controls, lone surrogates, astral
 * characters, capitals inside words, digits next to letters and spaces.
 */
import assert from 'node:assert/strict';
import { composition, type Composition } from '../../src/context/text-composition';
import { corpusSlices } from '../fixtures/context/corpus-slices';
import { seeded } from '../fixtures/context/factories';

/** The regular-expression walk the weights were set with (the scan's behaviour before it was hand-written). */
function regexComposition(text: string): Composition {
  const RUN = /[A-Za-z0-9]+|\s+|[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+|\p{Cc}|[^\p{ASCII}]/gu;
  const alnum = (k: number) => (k >= 0x30 && k <= 0x39) || (k >= 0x41 && k <= 0x5a) || (k >= 0x61 && k <= 0x7a);
  const digit = (k: number) => k >= 0x30 && k <= 0x39;
  const c: Composition = { tokens: 0, words: 0, mixed: 0, digits: 0, punct: 0, whitespace: 0, cjk: 0, script: 0, emoji: 0, invalid: 0 };
  for (let m = RUN.exec(text); m !== null; m = RUN.exec(text)) {
    const s = m[0];
    const first = s.charCodeAt(0);
    if (first < 0x80) {
      if (alnum(first)) {
        if (/^[0-9]+$/.test(s)) c.digits += Math.ceil(s.length / 3);
        else if (/^[A-Za-z]+$/.test(s)) {
          for (const piece of s.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g) ?? []) {
            if (/^[A-Z]?[a-z]+$/.test(piece) && /[aeiouy]/.test(piece)) c.words += 1 + Math.floor(piece.length / 9);
            else c.mixed += Math.max(1, piece.length * 0.8);
          }
        } else c.mixed += Math.max(1, s.length * 0.8);
      } else if (first === 0x20 || (first >= 0x09 && first <= 0x0d)) {
        if (s === ' ') c.whitespace += digit(text.charCodeAt(m.index + 1)) ? 1 : 0.2;
        else c.whitespace += 1 + (s.includes('\n') && !s.endsWith('\n') ? 1 : 0) + Math.floor(s.length / 16);
      } else if (first < 0x20 || first === 0x7f) c.invalid += 3;
      else c.punct += s.length * 0.85;
      continue;
    }
    const cp = s.codePointAt(0)!;
    if (cp > 0xffff) c.emoji += 3;
    else if (cp === 0xfffd || (cp >= 0xd800 && cp <= 0xdfff)) c.invalid += 3;
    else if ((cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0x200d || (cp >= 0x2000 && cp < 0x2e80)) c.emoji += 2;
    else if (cp >= 0x2e80 && cp <= 0xffef) c.cjk += 1.3;
    else if (/\s/u.test(s)) c.whitespace += 1;
    else c.script += 0.6;
  }
  c.tokens = Math.ceil(c.words + c.mixed + c.digits + c.punct + c.whitespace + c.cjk + c.script + c.emoji + c.invalid);
  return c;
}

const PIECES = [
  'a',
  'e',
  'y',
  'b',
  'x',
  'Q',
  'A',
  'Z',
  'the',
  'HTTP',
  'Server',
  'parseJSON',
  'XMLHttpRequest',
  'rhythm',
  'ID',
  'iOS',
  '0',
  '7',
  '123',
  '4096',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '\t',
  '\r\n',
  '\v',
  '\f',
  ' \n ',
  '\u00a0',
  '\u1680',
  '\u2003',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
  '\u0085',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u0080',
  '\u009f',
  '.',
  ',',
  '{',
  '}',
  '"',
  '=>',
  '::',
  '~',
  '`',
  '@',
  '[',
  '\\',
  '/',
  '中',
  '文',
  '日本語',
  'Привет',
  'é',
  'ß',
  'Ω',
  '\u0301',
  '😀',
  '👍🏽',
  '\u200d',
  '\ufe0f',
  '\ufffd',
  '\ud800',
  '\udc00',
  '\ud83d',
  '→',
  '…',
  '\uffef',
  '\ufff0',
  '\u2e80',
  '\u2e7f',
  '\u1fff',
];

function randomText(rnd: () => number, parts: number): string {
  let s = '';
  for (let i = 0; i < parts; i++) s += PIECES[Math.floor(rnd() * PIECES.length)];
  return s;
}

describe('composition scan: the hand-written walk equals the regular-expression walk', () => {
  it('on every slice of the corpus (code, JSON, logs, minified, base64, hex, CJK, Cyrillic, emoji…)', () => {
    let checked = 0;
    for (const s of corpusSlices()) {
      assert.deepEqual(composition(s.text), regexComposition(s.text), `${s.file}`);
      checked++;
    }
    assert.ok(checked > 50, `the corpus has slices to check (${checked})`);
  });

  it('on 3,000 random texts made of the characters a scanner most easily gets wrong', () => {
    const rnd = seeded(20261123);
    for (let i = 0; i < 3_000; i++) {
      const text = randomText(rnd, 1 + Math.floor(rnd() * 40));
      assert.deepEqual(composition(text), regexComposition(text), JSON.stringify(text));
    }
  });

  it('on the edge cases: empty, one character, runs ending the text, surrogates at the ends', () => {
    for (const text of [
      '',
      'a',
      'A',
      'AB',
      'ABc',
      'aBC',
      '1',
      ' ',
      ' 1',
      '\n',
      'x\n',
      '\n x',
      '\ud800',
      'a\udc00',
      '😀',
      '\u00a0 \u3000',
      'HTTPServer',
    ])
      assert.deepEqual(composition(text), regexComposition(text), JSON.stringify(text));
  });
});
