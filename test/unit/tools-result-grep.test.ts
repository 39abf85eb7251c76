import * as assert from 'node:assert/strict';
import { pageBuffer } from '../../src/tools/result-paging';
import { bufferSource, pageSource } from '../../src/tools/result-port';

/** The reference semantics: every line tested on its own, case-insensitive, numbered from 1. */
function reference(text: string, pattern: string): string[] {
  const re = new RegExp(pattern, 'i');
  return text.split('\n').flatMap((line, i) => (re.test(line) ? [`${i + 1}: ${line.replace(/\r$/, '')}`] : []));
}

function rng(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

describe('tools: read_result grep agrees with line-by-line matching', () => {
  const words = ['error', 'Error', 'ok', 'warn', 'x', 'abc', '', '  ', 'a\r', 'αβγ', '日本'];
  const patterns = ['error', '^ok', 'x$', 'a[^z]*c', '[^q]', '\\s+', 'ab|日', '^$', 'β'];
  for (let seed = 1; seed <= 30; seed++) {
    it(`random text #${seed}`, () => {
      const r = rng(seed);
      const lines = Array.from({ length: 1 + Math.floor(r() * 60) }, () =>
        Array.from({ length: Math.floor(r() * 4) }, () => words[Math.floor(r() * words.length)]).join(' '),
      );
      const text = lines.join('\n');
      for (const p of patterns) {
        const page = pageBuffer(Buffer.from(text), { offset: 0, limit: 1_000_000, grep: p });
        const expected = reference(text, p);
        assert.deepEqual(page.text ? page.text.split('\n') : [], expected, `pattern ${p} on ${JSON.stringify(text)}`);
        assert.equal(page.totalMatches, expected.length);
      }
    });
  }
});

describe('tools: read_result grep in chunks answers as in one piece', () => {
  const words = ['error', 'Error', 'ok', 'x', 'abc', '', 'a\r', 'αβγ', '日本', 'é'.repeat(30)];
  const patterns = ['error', '^ok', 'x$', 'a[^z]*c', '^$', 'β', 'é'];
  for (let seed = 1; seed <= 12; seed++) {
    it(`random text #${seed}, chunks of a few bytes to a few hundred`, async () => {
      const r = rng(seed);
      const lines = Array.from({ length: 1 + Math.floor(r() * 80) }, () =>
        Array.from({ length: Math.floor(r() * 4) }, () => words[Math.floor(r() * words.length)]).join(' '),
      );
      const content = Buffer.from(lines.join('\n') + (r() < 0.5 ? '\n' : ''));
      for (const p of patterns) {
        for (const [offset, limit] of [
          [0, 1_000_000],
          [2, 40],
        ]) {
          const options = { offset, limit, grep: p };
          const chunkBytes = 1 + Math.floor(r() * 300);
          const chunked = await pageSource(bufferSource(content, 'run_command'), options, { chunkBytes });
          assert.deepEqual(chunked, pageBuffer(content, options, 'run_command'), `pattern ${p}, chunks of ${chunkBytes}`);
        }
      }
    });
  }

  it('an empty result greps to nothing', async () => {
    const page = await pageSource(bufferSource(Buffer.alloc(0)), { offset: 0, limit: 100, grep: 'x' }, { chunkBytes: 8 });
    assert.deepEqual([page.text, page.totalMatches], ['', 0]);
  });
});
