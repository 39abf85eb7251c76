import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadEncoding, type EncodingName } from '../../src/context/encoder';

const dir = join(__dirname, '..', 'fixtures', 'context');
const reference = JSON.parse(readFileSync(join(dir, 'reference-counts.json'), 'utf8')) as {
  counts: Record<EncodingName, Record<string, number>>;
};

describe('context token counting: reference corpus', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    describe(encoding, () => {
      for (const [file, expected] of Object.entries(reference.counts[encoding])) {
        it(`${file}: bounded count within 2 % of the stored exact count`, async () => {
          const { counter } = await loadEncoding(encoding);
          const text = readFileSync(join(dir, 'corpus', file), 'utf8');
          const c = counter.count(text);
          assert.ok(Math.abs(c.bpe - expected) <= expected * 0.02, `${file}: ${c.bpe} vs ${expected}`);
          assert.equal(c.sampled, false, 'normal text must not be sampled');
          assert.equal(c.tokens, Math.max(c.bpe, Math.ceil(Buffer.byteLength(text) / 4)));
        });
      }
      it('the exact encoder still produces the stored counts (regression guard for the encoder itself)', async () => {
        const { counter } = await loadEncoding(encoding);
        for (const [file, expected] of Object.entries(reference.counts[encoding])) {
          assert.equal(counter.exact(readFileSync(join(dir, 'corpus', file), 'utf8')), expected, file);
        }
      });
    });
  }
});
