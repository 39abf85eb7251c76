import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createContextGate } from '../../src/agent/context-gate';
import { resolveModelLimits } from '../../src/context/models';
import { TokenLedger } from '../../src/context/token-ledger';
import { slowCounter } from '../fixtures/context/slow-counter';
import type { Message } from '../../src/providers/types';

describe('agent: the gate never trusts byte estimates of dense text near the limit', function () {
  this.timeout(30_000);
  const limits = resolveModelLimits('gpt-4.1', 'openai', {
    models: { 'gpt-4.1': { contextWindow: 32_000, maxOutput: 4_000 } },
    providers: {},
    bufferFraction: 0.02,
  });
  // Random base64 tool output: bytes/4 says ~1,000 tokens each, o200k counts ~2,700.
  const view: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'dump the keys' }], timestamp: 1 }];
  for (let i = 0; i < 11; i++) {
    view.push({
      role: 'assistant',
      content: [{ type: 'toolCall', id: `c${i}`, name: 'read_file', arguments: { path: `k${i}` } }],
      provider: 'openai',
      model: 'gpt-4.1',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'toolUse',
      timestamp: 2,
    });
    view.push({
      role: 'toolResult',
      toolCallId: `c${i}`,
      toolName: 'read_file',
      content: [{ type: 'text', text: randomBytes(3000).toString('base64') }],
      isError: false,
      timestamp: 3,
    });
  }

  it('waits for the real counts when the worst case could reach the compact threshold, and then sees the truth', async () => {
    const ledger = new TokenLedger(await slowCounter(400));
    let compacted = false;
    const gate = createContextGate({
      limits,
      ledger,
      exactCountTimeoutMs: 20,
      exactCountMaxWaitMs: 10_000,
      compact: (input) => {
        compacted = true;
        return Promise.resolve({ messages: input.messages.slice(-2), strategies: ['test'] });
      },
    });
    const d = await gate.preflight({ messages: view, system: [], tools: [], reason: 'request' }, new AbortController().signal);
    assert.ok(compacted, `the real count (~30k of a ${limits.effectiveWindow}-token effective window) triggers compaction`);
    assert.ok(d.compaction, 'the decision carries the compaction it made');
  });

  it('without any wait, the safe estimate of dense text alone already compacts (bytes/4 let this overflow through)', async () => {
    const ledger = new TokenLedger(await slowCounter(400));
    const bytesOver4 = view.reduce((s, m) => s + Math.ceil(Buffer.byteLength(JSON.stringify(m.content)) / 4), 0);
    assert.ok(bytesOver4 < 0.5 * limits.effectiveWindow, `bytes/4 (${bytesOver4}) looks harmless`);
    const estimate = view.reduce((s, m) => s + ledger.count(m, 'o200k').tokens, 0);
    assert.ok(estimate >= 0.95 * limits.effectiveWindow, `the safe estimate ${estimate} sees the danger`);
    let compacted = false;
    const gate = createContextGate({
      limits,
      ledger,
      exactCountTimeoutMs: 20,
      exactCountMaxWaitMs: 0,
      compact: (input) => {
        compacted = true;
        return Promise.resolve({ messages: input.messages.slice(-2), strategies: ['test'] });
      },
    });
    const d = await gate.preflight({ messages: view, system: [], tools: [], reason: 'request' }, new AbortController().signal);
    assert.equal(compacted, true);
    assert.ok(d.compaction);
  });
});
