import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import { planChunks } from '../../src/agent/compaction/chunked-summary';
import { requestTokensInSlices, serializeInSlices } from '../../src/agent/compaction/summarizer';
import { estimateMessage } from '../../src/context/message-tokens';
import { buildSummaryRequest, serializeHistory } from '../../src/context/compaction';
import type { Provider } from '../../src/providers/provider';
import type { Message, ProviderRequest, StreamEvent } from '../../src/providers/types';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { a, filler, session, tokensOf } from '../fixtures/compaction/factories';

/** A summarizer that answers at once, without any I/O: only the chain itself can give the event loop back. */
const instant: Provider = {
  id: 'anthropic',
  // eslint-disable-next-line @typescript-eslint/require-await
  async *stream(req: ProviderRequest): AsyncIterable<StreamEvent> {
    yield {
      type: 'done',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: '## Goal\nThe summary.' }],
        provider: 'anthropic',
        model: req.model,
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        stopReason: 'end',
        timestamp: 0,
      },
    };
  },
};

describe('compaction of a huge history gives the host its event loop back', () => {
  it('a pass yields to the event loop between and inside its steps', async () => {
    const chain = createCompactionChain({ summarizer: instant, summarizerModel: 'm', results: createMemoryResultPort() });
    const view = session(200, 4000, (i) => `task ${i}: ${filler(2000, `t${i}`)}`);
    let turns = 0;
    let done = false;
    const ping = () => {
      if (done) return;
      turns++;
      setImmediate(ping);
    };
    setImmediate(ping);
    const out = await chain.run(
      { messages: view, tokensOf, targetTokens: 20_000, trigger: 'threshold', effectiveWindow: 100_000, contextWindow: 120_000 },
      new AbortController().signal,
    );
    done = true;
    assert.ok(out?.strategies.includes('summary'), out?.notes.join('; '));
    assert.ok(turns >= 5, `the event loop turned ${turns} times during the pass`);
  });

  it('serializes in slices to exactly the text of one serialization', async () => {
    const view: Message[] = [...session(70, 900), a('', [{ id: 'x', path: 'a.ts' }]), a('')];
    for (const clip of [{}, { toolChars: 100, assistantChars: 400 }]) {
      assert.equal(await serializeInSlices(view, clip), serializeHistory(view, clip));
    }
  });

  it('counts a huge request in pieces never below the count of the whole (safe estimates)', async () => {
    const text = `${'第二章 配置与部署。'.repeat(20_000)}\n${'const x = (a) => a.map((b) => b * 2);\n'.repeat(8_000)}`;
    const request = buildSummaryRequest([], { model: 'x' });
    const big: ProviderRequest = { ...request, messages: [{ role: 'user', content: [{ type: 'text', text }], timestamp: 0 }] };
    const count = (m: Message) => estimateMessage(m, 'o200k', '').tokens;
    const whole = count(big.messages[0]);
    const pieces = await requestTokensInSlices(big, count);
    assert.ok(pieces >= whole, `${pieces} < ${whole}`);
    assert.ok(pieces < whole * 1.05 + 1000, `${pieces} is far above ${whole}`);
  });

  it('plans chunks in linear work: each message is serialized a bounded number of times', async () => {
    const view = session(150, 800, (i) => `turn ${i}: ${filler(600, `t${i}`)}`);
    let serialized = 0;
    const chunks = await planChunks(view, {
      limit: 6000,
      requestTokens: (req) => req.messages.reduce((s, m) => s + tokensOf(m), 0) + 100,
      chunkRequest: (m) => {
        serialized += m.length;
        return buildSummaryRequest(m, { model: 'x', toolChars: 100, assistantChars: 400 });
      },
    });
    assert.ok(chunks && chunks.length > 5);
    assert.deepEqual(chunks.flat(), view);
    // Rebuilding the request for every message added would serialize ~n²/(2·chunks) messages (> 10,000 here).
    assert.ok(serialized <= 4 * view.length, `${serialized} messages serialized for ${view.length}`);
  });
});
