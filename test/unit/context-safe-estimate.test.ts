import assert from 'node:assert/strict';
import { getTokenizer } from '@anthropic-ai/tokenizer';
import { refreshOnExactCounts } from '../../src/agent/exact-count-refresh';
import type { ContextUsage } from '../../src/agent/events';
import { loadEncoding } from '../../src/context/encoder';
import { estimateText } from '../../src/context/message-tokens';
import { contentClassOf } from '../../src/context/safe-estimate';
import { composition } from '../../src/context/text-composition';
import { TokenLedger } from '../../src/context/token-ledger';
import { countInFamily } from '../../src/context/worker-count';
import { corpusSlices } from '../fixtures/context/corpus-slices';
import { estimateAccuracy, FAMILIES } from '../fixtures/context/estimate-accuracy';
import { inProcessCounter } from '../fixtures/context/in-process-counter';
import { stressTexts } from '../fixtures/context/stress-texts';
import { user } from '../fixtures/context/factories';

/** The largest under-count any figure may have on any slice or file (bench: count_worst_undercount). */
const MAX_UNDERCOUNT = 0.03;
/** The largest mean over-count of the safe estimate over the corpus, per family. */
const MAX_MEAN_OVERCOUNT = 0.15;

describe('context: token figures are upper bounds on every kind of text, in every family', function () {
  this.timeout(120_000);

  it('before and after the worker, no 4 KiB slice or file of any class is under the exact count by more than 3 % (o200k, cl100k, the public Claude tokenizer), and the estimate over-counts ≤ 15 % on average', async () => {
    const byClass = await estimateAccuracy();
    // Every class the corpus is meant to cover, including the patterns bytes/4 and the old estimate missed.
    for (const label of [
      'csv',
      'table',
      'hi',
      'ar',
      'ko',
      'km',
      'ru',
      'zh',
      'ja',
      'code',
      'json',
      'log',
      'minified',
      'base64',
      'emoji',
      'prose',
    ])
      assert.ok(byClass.has(label), `the corpus has ${label}`);
    for (const f of FAMILIES) {
      let sum = 0;
      let n = 0;
      for (const [label, acc] of byClass) {
        const a = acc[f];
        const where = `${f} ${label} (worst: ${a.worstFile})`;
        assert.ok(a.worstBefore >= -MAX_UNDERCOUNT, `${where}: estimate under by ${(-a.worstBefore * 100).toFixed(1)} %`);
        assert.ok(a.worstAfter >= -MAX_UNDERCOUNT, `${where}: worker's figure under by ${(-a.worstAfter * 100).toFixed(1)} %`);
        if (f !== 'claude') assert.equal(a.meanAfter, 0, `${where}: the worker counts ${f} exactly`);
        sum += a.meanBefore * a.slices;
        n += a.slices;
      }
      assert.ok(sum / n <= MAX_MEAN_OVERCOUNT, `${f}: mean over-count ${((sum / n) * 100).toFixed(1)} %`);
    }
  });

  it('random bytes, random printable ASCII, shuffled words, a word a line, dates, aligned numbers and deep indentation are over-estimated too', async () => {
    const o200k = (await loadEncoding('o200k_base')).counter;
    const cl100k = (await loadEncoding('cl100k_base')).counter;
    const claude = getTokenizer();
    const texts = [
      ...corpusSlices().filter((x) => x.label === 'random'),
      ...stressTexts().map((x) => ({ label: x.label, file: x.name, text: x.text })),
    ];
    assert.ok(texts.length > 200, `${texts.length} texts`);
    try {
      for (const s of texts) {
        const exact = {
          o200k: o200k.count(s.text),
          cl100k: cl100k.count(s.text),
          claude: claude.encode(s.text.normalize('NFKC'), 'all').length,
        };
        for (const f of FAMILIES) {
          const before = estimateText(s.text, f).tokens;
          const after = countInFamily(s.text, f, f === 'cl100k' ? cl100k : o200k).tokens;
          assert.ok(before >= exact[f] * (1 - MAX_UNDERCOUNT), `${s.file} ${f}: estimate ${before} < exact ${exact[f]}`);
          assert.ok(after >= exact[f] * (1 - MAX_UNDERCOUNT), `${s.file} ${f}: worker ${after} < exact ${exact[f]}`);
        }
      }
    } finally {
      claude.free();
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
    const view = [
      user('这是一段没有空格的中文文本，用来测试计数。'.repeat(20)),
      user('Plain words describe what the agent found in the file. '.repeat(20)),
    ];
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
