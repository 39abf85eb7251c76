import assert from 'node:assert/strict';
import { Tiktoken } from 'js-tiktoken/lite';
import { loadEncoding } from '../../src/context/encoder';
import { base64Run, cjkRun, lowercaseRun, minifiedLine, seeded } from '../fixtures/context/factories';

describe('context token counting: pathological inputs are counted exactly', function () {
  // No timing assertions here (benches measure speed); js-tiktoken takes minutes on a 10 KB run of one
  // character, the exact counter well under a second on 1 MB, so mocha's timeout catches a regression.
  this.timeout(60_000);

  it('equals js-tiktoken on each pathological kind, on both sides of the heap threshold (long pre-tokens)', async () => {
    const { counter } = await loadEncoding('o200k_base');
    const reference = new Tiktoken((await import('js-tiktoken/ranks/o200k_base')).default);
    const rnd = seeded(7);
    const samples: Array<[string, string]> = [
      ['repeated char', 'a'.repeat(900)],
      ['short repeated char', 'a'.repeat(127)],
      ['just over the threshold', 'a'.repeat(129)],
      ['repeated CJK char', '漢'.repeat(300)],
      ['CJK run', cjkRun(rnd, 400)],
      ['lowercase run', lowercaseRun(rnd, 900)],
      ['base64', base64Run(rnd, 3000)],
      ['minified line', minifiedLine(3000)],
      ['emoji run', '😀🚀'.repeat(120)],
      ['astral run', '𝒜'.repeat(200)],
      ['spaces', ' '.repeat(3000) + 'x'],
    ];
    for (const [label, text] of samples) assert.equal(counter.count(text), reference.encode(text, [], []).length, label);
  });

  it('counts 1 MB runs (repeated char, CJK, base64, minified) without hanging, and each grows with its size', async () => {
    const { counter } = await loadEncoding('o200k_base');
    const rnd = seeded(11);
    const cases: Array<[string, (n: number) => string]> = [
      ['repeated char', (n) => 'x'.repeat(n)],
      ['CJK', (n) => cjkRun(rnd, Math.floor(n / 3))],
      ['base64', (n) => base64Run(rnd, n)],
      ['minified', (n) => minifiedLine(n)],
    ];
    for (const [label, make] of cases) {
      const small = counter.count(make(16 * 1024));
      const big = counter.count(make(1024 * 1024));
      assert.ok(big > small * 40 && big < small * 90, `${label}: ${small} tokens for 16 KB, ${big} for 1 MB`);
    }
  });

  it('counts text containing special-token markers as plain text instead of throwing', async () => {
    const { counter } = await loadEncoding('o200k_base');
    const reference = new Tiktoken((await import('js-tiktoken/ranks/o200k_base')).default);
    const text = 'before <|endoftext|> middle <|im_start|>system after';
    assert.equal(counter.count(text), reference.encode(text, [], []).length);
    assert.ok(counter.count(text) > 5);
  });

  it('handles empty and whitespace-only text', async () => {
    const { counter } = await loadEncoding('o200k_base');
    assert.equal(counter.count(''), 0);
    assert.ok(counter.count(' '.repeat(5000) + 'x') >= 2);
  });
});
