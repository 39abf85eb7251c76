import assert from 'node:assert/strict';
import { createContextGate } from '../../src/agent/context-gate';
import { createCompactionChain } from '../../src/agent/compaction';
import { preflight } from '../../src/context/guard';
import { resolveModelLimits } from '../../src/context/models';
import { parseContextSettings } from '../../src/context/settings';
import { TokenLedger } from '../../src/context/token-ledger';
import type { Message, ToolDefinition } from '../../src/providers/types';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { seeded } from '../fixtures/context/factories';
import { a, r, u } from '../fixtures/compaction/factories';

// 100k window, 20k output, 2k buffer → effective 78k.
const limits = resolveModelLimits(
  'm',
  'openai-compatible',
  parseContextSettings({ models: { m: { contextWindow: 100_000, maxOutput: 20_000, bufferTokens: 2_000 } } }).settings,
);

describe('context guard: no exception lets a request over the margin', () => {
  it('a sendable verdict always leaves the output reservation and the whole buffer free, whatever the schemas are (randomized)', () => {
    const rnd = seeded(16);
    for (let i = 0; i < 2000; i++) {
      const schema = Math.floor(rnd() * 50_000);
      const committed = Math.floor(rnd() * 80_000);
      const res = preflight({ committed, pending: Math.floor(rnd() * 3000), newTokens: 0, schema }, limits);
      if (res.status === 'block' || res.status === 'final') continue;
      const p = res.projection;
      assert.ok(p.total < 0.98 * p.limit, `status ${res.status} at ${p.total} of ${p.limit} (schema ${schema})`);
      assert.ok(p.total + limits.maxOutput + limits.buffer <= limits.contextWindow);
    }
  });

  it('the reason names both parts and does not claim that the tool definitions alone overflow', () => {
    const res = preflight({ committed: 60_000, pending: 0, newTokens: 0, schema: 17_000 }, limits);
    assert.equal(res.status, 'block');
    assert.equal(res.schemaOnly, true);
    assert.doesNotMatch(res.reason, /overflow the window/);
    assert.match(res.reason, /conversation \(60,000 tokens\) plus tool definitions \(17,000 tokens\)/);
  });

  it('the gate clears old tool results before sending when the tool definitions push the projection over', async () => {
    // 8k window, 1k output, 2 % buffer: effective ≈ 6.8k tokens.
    const small = resolveModelLimits(
      's',
      'openai-compatible',
      parseContextSettings({ models: { s: { contextWindow: 8_000, maxOutput: 1_000 } } }).settings,
    );
    const results = createMemoryResultPort();
    const chain = createCompactionChain({ results });
    const gate = createContextGate({ limits: small, ledger: new TokenLedger(), compact: chain.hook });
    const tools: ToolDefinition[] = [
      { name: 'big_tool', description: 'tool '.repeat(2_500), inputSchema: { type: 'object', properties: {} } },
    ]; // ≈ 3k tokens
    const view: Message[] = [u('start')];
    for (let i = 0; i < 6; i++)
      view.push(
        a('', [{ id: `c${i}`, name: 'read_file' }]),
        r(`c${i}`, `result line ${'abcdefghij'[i]} `.repeat(180), { name: 'read_file' }),
      ); // ≈ 600 tokens each
    view.push(a('', [{ id: 'now', name: 'read_file' }]), r('now', 'the newest result'));
    const base = gate.measure(view).used;
    assert.ok(base < 0.98 * small.effectiveWindow, 'the conversation alone fits');
    const decision = await gate.preflight({ messages: view, system: [], tools, reason: 'request' }, new AbortController().signal);
    assert.ok(decision.compaction, 'compacted instead of sending over the margin');
    assert.ok(decision.compaction.strategies.includes('clear_tool_results'), decision.compaction.strategies.join());
    assert.ok(decision.status !== 'block' && decision.status !== 'final', decision.status);
    assert.ok(decision.projection!.total < 0.98 * small.effectiveWindow);
    const kept = decision.messages!.find((m) => m.role === 'toolResult' && m.toolCallId === 'now');
    assert.ok(kept && JSON.stringify(kept).includes('the newest result'), 'the newest result is kept');
  });
});
