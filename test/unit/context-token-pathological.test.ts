import assert from 'node:assert/strict';
import { loadEncoding } from '../../src/context/encoder';
import { base64Run, cjkRun, lowercaseRun, minifiedLine, seeded } from '../fixtures/context/factories';

const within = (actual: number, expected: number, tolerance: number, label: string) =>
  assert.ok(Math.abs(actual - expected) <= Math.max(2, expected * tolerance), `${label}: ${actual} vs exact ${expected}`);

describe('context token counting: pathological inputs', () => {
  // No timing assertions here (benches measure speed); these inputs would take minutes unguarded and
  // finish in well under a second with the bounded counter, so mocha's timeout catches a regression.
  it('agrees with the exact count on short samples of each pathological kind', async () => {
    const { counter } = await loadEncoding('o200k_base');
    const rnd = seeded(7);
    const samples: Array<[string, string]> = [
      ['repeated char', 'a'.repeat(1500)],
      ['repeated CJK char', '漢'.repeat(400)],
      ['CJK run', cjkRun(rnd, 500)],
      ['lowercase run', lowercaseRun(rnd, 1500)],
      ['base64', base64Run(rnd, 6000)],
      ['minified line', minifiedLine(6000)],
      ['emoji run', '😀🚀'.repeat(300)],
    ];
    for (const [label, text] of samples) within(counter.count(text).bpe, counter.exact(text), 0.03, label);
  });

  it('counts 1 MB runs (repeated char, CJK, base64, minified) without hanging, proportionally to size', async () => {
    const { counter } = await loadEncoding('o200k_base');
    const rnd = seeded(11);
    const cases: Array<[string, (n: number) => string, number]> = [
      ['repeated char', (n) => 'x'.repeat(n), 1],
      ['CJK', (n) => cjkRun(rnd, Math.floor(n / 3)), 3],
      ['base64', (n) => base64Run(rnd, n), 1],
      ['minified', (n) => minifiedLine(n), 1],
    ];
    for (const [label, make] of cases) {
      const small = counter.count(make(16 * 1024));
      const big = counter.count(make(1024 * 1024));
      assert.ok(big.tokens >= Math.ceil(big.bytes / 4), `${label}: floor`);
      const ratio = big.bpe / big.bytes / (small.bpe / small.bytes);
      // A sampled count is an upper bound: it may run a little high, never low.
      assert.ok(ratio > 0.97 && ratio < 1.2, `${label}: tokens per byte drift ${ratio}`);
    }
  });

  it('counts text containing special-token markers as plain text instead of throwing', async () => {
    const { counter } = await loadEncoding('o200k_base');
    const text = 'before <|endoftext|> middle <|im_start|>system after';
    assert.equal(counter.count(text).bpe, counter.exact(text));
    assert.ok(counter.count(text).bpe > 5);
  });

  it('never splits a surrogate pair when chunking (count of an emoji run matches its exact count closely)', async () => {
    const { counter } = await loadEncoding('o200k_base');
    const text = '𝒜'.repeat(2000); // astral characters, 4 bytes each, one long pre-token
    const c = counter.count(text);
    assert.equal(c.bytes, 8000);
    within(c.bpe, counter.exact('𝒜'.repeat(200)) * 10, 0.03, 'astral run');
  });

  it('handles empty and whitespace-only text', async () => {
    const { counter } = await loadEncoding('o200k_base');
    assert.deepEqual(counter.count(''), { tokens: 0, bpe: 0, sampled: false, bytes: 0, contentClass: 'prose' });
    const spaces = ' '.repeat(5000) + 'x';
    assert.ok(counter.count(spaces).tokens >= 1250);
  });
});
