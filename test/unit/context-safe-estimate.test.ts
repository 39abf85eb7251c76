import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { refreshOnExactCounts } from '../../src/agent/exact-count-refresh';
import type { ContextUsage } from '../../src/agent/events';
import { createBoundedCounter } from '../../src/context/bounded-counter';
import { loadEncoding } from '../../src/context/encoder';
import { estimateText } from '../../src/context/message-tokens';
import { contentClassOf, composition } from '../../src/context/text-composition';
import { TokenLedger } from '../../src/context/token-ledger';
import { corpusSlices } from '../fixtures/context/corpus-slices';
import { inProcessCounter } from '../fixtures/context/in-process-counter';
import { user } from '../fixtures/context/factories';

/** The largest under-count the safe estimate may have on any real-text slice (bench: count_worst_undercount). */
const MAX_UNDERCOUNT = 0.03;

describe('context: the estimate before the exact count is an upper bound on every kind of text', function () {
  this.timeout(60_000);

  it('never under-counts a 4 KiB slice of real text of any class by more than 3 % (o200k exact), where bytes/4 misses by up to 60 %', async () => {
    const { counter } = await loadEncoding('o200k_base');
    let worstBytes = 0;
    for (const s of corpusSlices()) {
      const exact = counter.exact(s.text);
      const est = estimateText(s.text).bpe;
      assert.ok(est >= exact * (1 - MAX_UNDERCOUNT), `${s.file}: estimate ${est} < exact ${exact}`);
      worstBytes = Math.max(worstBytes, (exact - Math.ceil(Buffer.byteLength(s.text) / 4)) / exact);
    }
    assert.ok(worstBytes > 0.3, `the corpus is dense enough to have broken bytes/4 (worst miss ${worstBytes})`);
  });

  it('a sampled count of a long text is an upper bound too (naive extrapolation missed Japanese by 9.5 %)', async () => {
    const { counter, encoder } = await loadEncoding('o200k_base');
    const ranks = (await import('js-tiktoken/ranks/o200k_base')).default;
    // A small work budget forces sampling on a 32 KB Japanese page.
    const sampling = createBoundedCounter(encoder, ranks.pat_str, { budgetUnits: 20_000 });
    for (const file of ['cjk-ja-vite-docs.txt', 'cjk-zh-vue-docs.txt', 'json-gemoji.txt', 'minified-jquery.txt']) {
      const text = readFileSync(join(__dirname, '..', 'fixtures', 'corpus', file), 'utf8');
      const sampled = sampling.count(text);
      assert.equal(sampled.sampled, true, file);
      const exact = counter.exact(text);
      assert.ok(sampled.bpe >= exact * (1 - MAX_UNDERCOUNT), `${file}: sampled ${sampled.bpe} vs exact ${exact}`);
    }
  });

  it('classifies text by what its tokens come from', () => {
    const cls = (t: string) => contentClassOf(composition(t));
    assert.equal(cls('The agent reads the file and reports what it found in plain words.'), 'prose');
    assert.equal(cls('这是一个没有空格的中文段落，用来测试分类。'), 'cjk');
    assert.equal(cls('Это обычный русский текст для проверки.'), 'script');
    assert.equal(cls('iVBORw0KGgoAAAANSUhEUgAAAoAAAAHgCAYAAAA10dzkAAAAOXRFWHRTb2Z0d2FyZQBNYXRwbG90bGli'), 'dense');
    assert.equal(cls('😀 🚀 🎉 👍 🔥 ✨ 🙈 🍕'), 'emoji');
    assert.equal(cls('{"a": [1, 2, 3], "b": {"c": "d"}, "e": 12.5}'), 'structured');
  });

  it('replaces the estimate in the meter as soon as the exact count arrives, with one update per burst', async () => {
    const ledger = new TokenLedger(inProcessCounter());
    const view = [user('a'.repeat(10) + ' 漢字'.repeat(200)), user('plain words here '.repeat(50))];
    const measure = (): ContextUsage => {
      const t = ledger.total(view, 'o200k');
      return {
        used: t.tokens,
        effectiveWindow: 1000,
        contextWindow: 1000,
        ratio: t.tokens / 1000,
        status: 'ok',
        budget: { confirmed: t.exact } as never,
      };
    };
    const before = measure();
    const published = new Promise<ContextUsage>((resolve) => refreshOnExactCounts(ledger.onDidCount, measure, resolve));
    const after = await published; // no sleep: resolves on the event
    assert.ok((after.budget as unknown as { confirmed: boolean }).confirmed, 'the published figure is the exact one');
    assert.ok(after.used <= before.used, `exact ${after.used} replaces the upper-bound estimate ${before.used}`);
    ledger.dispose();
  });
});
