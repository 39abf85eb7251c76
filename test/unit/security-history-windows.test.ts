/**
 * search_history reads stored results in bounded windows. Before, every call read every stored result
 * whole (64 MB of results: +46 MB of memory and ~1 s per call); now a call holds one window, and a
 * match that straddles two windows, or words spread over several, is still found.
 */
import assert from 'node:assert/strict';
import type { Message } from '../../src/providers/types';
import { createHistorySearchPort, EXCERPT_READ_BYTES, HISTORY_WINDOW_BYTES, type HistorySource } from '../../src/tools/history-port';
import { createMemoryResultPort } from '../../src/tools/memory-results';

const MB = 1024 * 1024;

async function sourceWith(results: Array<{ text: string }>): Promise<HistorySource & { largest: number; bytes: number }> {
  const port = createMemoryResultPort();
  const entries: Array<{ seq: number; turn: number; message: Message }> = [];
  for (const [i, r] of results.entries()) {
    const refId = await port.put({ toolName: 'run_command', toolCallId: `c${i}`, content: r.text });
    entries.push({
      seq: i + 1,
      turn: i + 1,
      message: {
        role: 'toolResult',
        toolCallId: `c${i}`,
        toolName: 'run_command',
        content: [{ type: 'text', text: '[stored]' }],
        isError: false,
        refId,
        timestamp: 1,
      },
    });
  }
  const src = {
    largest: 0,
    bytes: 0,
    transcript: () => Promise.resolve(entries),
    async page(refId: string, offset: number, limit: number) {
      const page = await port.page(refId, { offset, limit });
      src.largest = Math.max(src.largest, Buffer.byteLength(page?.text ?? ''));
      src.bytes += Buffer.byteLength(page?.text ?? '');
      return page;
    },
  };
  return src;
}

describe('security: search_history reads stored results in bounded windows', function () {
  this.timeout(120_000);

  it('finds a phrase at the end of 3 × 8 MB of stored output holding one window at a time', async () => {
    const filler = 'INFO request served in 12 ms\n'.repeat(Math.ceil((8 * MB) / 29));
    const src = await sourceWith([{ text: filler }, { text: `${filler}FATAL the quick brown fox failed\n` }, { text: filler }]);
    const r = await createHistorySearchPort(src).search({ query: 'brown fox failed' }, new AbortController().signal);
    assert.equal(r.total, 1);
    assert.match(r.hits[0].excerpt, /FATAL the quick brown fox failed/);
    assert.ok(src.largest <= HISTORY_WINDOW_BYTES, `a window of ${src.largest} bytes`);
  });

  it('finds a phrase across a window boundary, and all the words of a query spread over windows', async () => {
    const window = 64;
    const text = `${'x'.repeat(window - 4)}needle in the haystack${'y'.repeat(300)}alpha${'z'.repeat(300)}omega\n`;
    const src = await sourceWith([{ text }]);
    const port = createHistorySearchPort(src, window);
    const phrase = await port.search({ query: 'needle in the haystack' }, new AbortController().signal);
    assert.equal(phrase.total, 1);
    assert.match(phrase.hits[0].excerpt, /needle in the haystack/);
    const words = await port.search({ query: 'omega alpha' }, new AbortController().signal);
    assert.equal(words.total, 1);
    assert.match(words.hits[0].excerpt, /alpha/);
    const none = await port.search({ query: 'absent' }, new AbortController().signal);
    assert.equal(none.total, 0);
    assert.ok(src.largest <= Math.max(window, EXCERPT_READ_BYTES), `a read of ${src.largest} bytes`);
  });
});
