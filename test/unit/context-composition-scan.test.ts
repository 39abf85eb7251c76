/**
 * The composition scan (`src/context/text-composition.ts`) reads every non-ASCII character's facts from
 * a generated table (`char-table.json`): its category as the tokenizers' patterns see it and what it
 * costs alone in each family. These check the table against Unicode and the tokenizers themselves, and
 * the scan against the characters where a hand scanner most easily goes wrong.
 */
import assert from 'node:assert/strict';
import { getTokenizer } from '@anthropic-ai/tokenizer';
import { CAT_LETTER, CAT_MARK, CAT_NUMBER, CAT_OTHER, charTable, costOf } from '../../src/context/char-table';
import { loadEncoding } from '../../src/context/encoder';
import { estimateTokens } from '../../src/context/safe-estimate';
import {
  composition,
  F_ASTRAL,
  F_CONTROL,
  F_DIGIT_GROUP,
  F_PUNCT_WORD,
  F_SPACE_DIGIT,
  F_WORD,
  FEATURES,
} from '../../src/context/text-composition';
import { seeded } from '../fixtures/context/factories';

describe('composition scan: the character table and the walk', function () {
  this.timeout(60_000);

  it('gives every BMP code point the category the pre-token patterns see (\\p{L}, \\p{M}, \\p{N})', () => {
    const t = charTable();
    for (let cp = 0x80; cp < 0x10000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCharCode(cp);
      const want = /\p{L}/u.test(ch) ? CAT_LETTER : /\p{M}/u.test(ch) ? CAT_MARK : /\p{N}/u.test(ch) ? CAT_NUMBER : CAT_OTHER;
      assert.equal((t.entry[cp] >> 4) & 3, want, `U+${cp.toString(16)}`);
    }
  });

  it("holds what each character costs alone in each family's vocabulary (a sample of 3,000)", async () => {
    const t = charTable();
    const o200k = (await loadEncoding('o200k_base')).counter;
    const cl100k = (await loadEncoding('cl100k_base')).counter;
    const claude = getTokenizer();
    const rnd = seeded(30);
    try {
      for (let k = 0; k < 3000; k++) {
        const cp = 0x80 + Math.floor(rnd() * (0xffff - 0x80));
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        const ch = String.fromCharCode(cp);
        const cap = (n: number) => Math.min(3, n - 1);
        assert.equal(costOf(t, 0, cp), cap(o200k.count(ch)), `o200k U+${cp.toString(16)}`);
        assert.equal(costOf(t, 1, cp), cap(cl100k.count(ch)), `cl100k U+${cp.toString(16)}`);
        assert.equal(costOf(t, 2, cp), cap(claude.encode(ch.normalize('NFKC'), 'all').length), `claude U+${cp.toString(16)}`);
      }
    } finally {
      claude.free();
    }
  });

  it('walks the pieces a hand scanner most easily gets wrong', () => {
    const at = (text: string, i: number) => composition(text).counts[i];
    assert.equal(at('parseJSON XMLHttpRequest iOS', F_WORD), 7); // parse JSON XML Http Request i OS
    assert.equal(at('1234567', F_DIGIT_GROUP), 3);
    assert.equal(at('x = 42', F_SPACE_DIGIT), 1);
    assert.equal(at('a.b (c', F_PUNCT_WORD), 1); // ".b" joins its word; " (c" does not (the space takes it)
    assert.equal(at('😀👍🏽', F_ASTRAL), 3);
    assert.equal(at('\ud800x\udc00\u0000', F_CONTROL), 3); // two lone surrogates and a NUL
    for (const text of ['', 'a', '\ud800', '\udc00', ' ', '\n', 'é', '\u0301', '\uffff', '\u3000', '\ufeff'])
      assert.equal(composition(text).counts.length, FEATURES);
    assert.equal(estimateTokens(composition(''), 'o200k'), 0);
  });
});
