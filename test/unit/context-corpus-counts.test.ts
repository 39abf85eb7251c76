import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getTokenizer } from '@anthropic-ai/tokenizer';
import { Tiktoken } from 'js-tiktoken/lite';
import { exactCounts } from '../fixtures/context/corpus-counts';
import { slices } from '../fixtures/context/corpus-slices';

describe('the corpus reference counts are the reference tokenizers', function () {
  this.timeout(120_000);

  it('re-derives every 9th slice with js-tiktoken (o200k, cl100k) and the public Claude tokenizer', async () => {
    const o200k = new Tiktoken((await import('js-tiktoken/ranks/o200k_base')).default);
    const cl100k = new Tiktoken((await import('js-tiktoken/ranks/cl100k_base')).default);
    const claude = getTokenizer();
    let k = 0;
    let checked = 0;
    try {
      for (const [file, ref] of Object.entries(exactCounts().files)) {
        const parts = slices(readFileSync(join(__dirname, '..', 'fixtures', 'corpus', file), 'utf8'));
        assert.equal(parts.length, ref.slices.o200k.length, `${file}: slices`);
        for (let i = 0; i < parts.length; i++) {
          if (k++ % 9 !== 0) continue;
          const t = parts[i];
          assert.equal(o200k.encode(t, [], []).length, ref.slices.o200k[i], `${file} slice ${i} o200k`);
          assert.equal(cl100k.encode(t, [], []).length, ref.slices.cl100k[i], `${file} slice ${i} cl100k`);
          assert.equal(claude.encode(t.normalize('NFKC'), 'all').length, ref.slices.claude[i], `${file} slice ${i} claude`);
          checked++;
        }
      }
    } finally {
      claude.free();
    }
    assert.ok(checked > 70, `${checked} slices re-derived`);
  });
});
