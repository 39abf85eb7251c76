import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadEncoding, type EncodingName } from '../../src/context/encoder';
import { exactCounts } from '../fixtures/context/corpus-counts';
import { slices } from '../fixtures/context/corpus-slices';

const dir = join(__dirname, '..', 'fixtures', 'context');
const reference = JSON.parse(readFileSync(join(dir, 'reference-counts.json'), 'utf8')) as {
  counts: Record<EncodingName, Record<string, number>>;
};

describe('context token counting: the worker counts every token', function () {
  this.timeout(120_000);

  for (const [encoding, family] of [
    ['o200k_base', 'o200k'],
    ['cl100k_base', 'cl100k'],
  ] as const) {
    it(`${encoding}: equals js-tiktoken on every 4 KiB slice and every whole file of the real-text corpus (no sampling, however long)`, async () => {
      const { counter } = await loadEncoding(encoding);
      const counts = exactCounts();
      let checked = 0;
      for (const [file, ref] of Object.entries(counts.files)) {
        const text = readFileSync(join(__dirname, '..', 'fixtures', 'corpus', file), 'utf8');
        assert.equal(counter.count(text), ref.file[family], `${file} (whole)`);
        slices(text).forEach((s, k) => assert.equal(counter.count(s), ref.slices[family][k], `${file} slice ${k}`));
        checked++;
      }
      assert.ok(checked > 90, `the corpus has files (${checked})`);
      for (const [file, expected] of Object.entries(reference.counts[encoding]))
        assert.equal(counter.count(readFileSync(join(dir, 'corpus', file), 'utf8')), expected, file);
    });
  }
});
