import assert from 'node:assert/strict';
import { SpendRecorder } from '../../src/agent/spend-recorder';
import { cacheMiss, missCost, requestShape, whatChanged } from '../../src/context/cache-truth';
import { pricesFor } from '../../src/context/models';
import { cacheDetails } from '../../src/panel/cache-view';
import { AnthropicProvider } from '../../src/providers/anthropic';
import type { AssistantMessage, Message, ProviderRequest, Usage } from '../../src/providers/types';
import { startFakeProvider } from '../fixtures/fake-provider';
import { longSystem, readFileTool, request, run, user } from '../fixtures/fake-provider/factories';

const MODEL = 'claude-opus-4-5';
const usage = (u: Partial<Usage>): Usage => ({ input: 0, output: 10, cacheRead: 0, cacheWrite: 0, ...u });

describe('cache truth: every missed cache has a reason and a price', () => {
  const base = request([user('one'), user('two')], { model: MODEL, system: longSystem(50), tools: [readFileTool] });

  it('names what changed in the order the invalidation rules apply', () => {
    const t = 1_000_000;
    const prev = requestShape(base, t);
    const at = (r: ProviderRequest, dt = 1000) => requestShape(r, t + dt);
    assert.equal(whatChanged(prev, at(base)), undefined);
    assert.equal(whatChanged(prev, at({ ...base, messages: [...base.messages, user('three')] })), undefined, 'appending keeps the prefix');
    assert.equal(whatChanged(prev, at(base, 6 * 60_000)), 'expired');
    assert.equal(whatChanged(prev, at({ ...base, model: 'other' })), 'model');
    assert.equal(whatChanged(prev, at({ ...base, tools: [{ ...readFileTool, description: 'changed' }] })), 'tools');
    assert.equal(whatChanged(prev, at({ ...base, system: longSystem(51) })), 'system');
    assert.equal(
      whatChanged(prev, at({ ...base, system: [base.system[0], { id: 'status', text: 'Context status: tight.' }] })),
      undefined,
      'what follows the last breakpoint is not cached',
    );
    assert.equal(whatChanged(prev, at({ ...base, thinking: { mode: 'budget', budgetTokens: 2048 } })), 'thinking');
    assert.equal(whatChanged(prev, at({ ...base, toolChoice: 'none' })), 'tool_choice');
    assert.equal(whatChanged(prev, at({ ...base, messages: [user('summary'), user('two')] })), 'prefix');
  });

  it('counts a miss only past the rounding, and prices it as the difference to a read', () => {
    const prices = pricesFor(MODEL)!;
    const s = requestShape(base, 0);
    const prev = { shape: s, usage: usage({ cacheRead: 20_000, cacheWrite: 500, input: 50 }) };
    assert.equal(cacheMiss(prev, { shape: s, usage: usage({ cacheRead: 20_300, cacheWrite: 200, input: 50 }) }, prices), undefined);
    const miss = cacheMiss(prev, { shape: { ...s, tools: 'x' }, usage: usage({ cacheWrite: 20_500, input: 50 }) }, prices);
    assert.equal(miss?.reason, 'tools');
    assert.equal(miss?.missedTokens, 20_500);
    // Written at 6.25 $/M instead of read at 0.50 $/M.
    assert.ok(Math.abs(miss.dollars! - (20_500 * (6.25 - 0.5)) / 1e6) < 1e-9);
    assert.equal(
      cacheMiss(prev, { shape: s, usage: usage({ input: 20_550 }) }, undefined)?.dollars,
      undefined,
      'no prices: unknown, not $0',
    );
    assert.equal(missCost(usage({ input: 100 }), 0, prices), 0);
  });

  it('against the fake: a tool change shows as a miss with its reason and dollars in the details', async () => {
    const server = await startFakeProvider();
    try {
      const provider = new AnthropicProvider({ apiKey: 'k', baseUrl: server.baseUrl });
      const recorder = new SpendRecorder({ model: () => MODEL });
      let messages: Message[] = [user('first question')];
      let tools = [readFileTool];
      const send = async (at: number) => {
        const req = request(messages, { model: MODEL, system: longSystem(3000), tools, cacheTail: true });
        const { message } = await run(provider, req);
        recorder.handle({ type: 'usage', model: MODEL, usage: message.usage, shape: requestShape(req, at) });
        return message;
      };
      const step = async (at: number, next: string) => {
        const reply: AssistantMessage = await send(at);
        messages = [...messages, reply, user(next)];
      };
      await step(1000, 'second');
      await step(2000, 'third');
      assert.equal(recorder.state.misses?.length, 0, 'appending reads the cache');
      tools = [{ ...readFileTool, description: 'Read a file of the workspace, now described differently.' }];
      await step(3000, 'fourth');
      await step(4000, 'fifth');
      const misses = recorder.state.misses ?? [];
      assert.deepEqual(
        misses.map((m) => m.reason),
        ['tools'],
      );
      assert.ok(misses[0].missedTokens > 3000 && (misses[0].dollars ?? 0) > 0);
      const rows = cacheDetails(recorder.state);
      assert.match(rows.find((r) => r.label === 'Cache misses')!.value, /^1 miss this session, .* tokens not read, \$/);
      assert.ok(rows.some((r) => r.value.startsWith('the tool definitions changed')));
      assert.match(rows[0].value, /read · .* written · .* uncached/);
    } finally {
      await server.close();
    }
  });

  it('against the fake: more blocks than the lookback added at once is a "lookback" miss, never an unexplained one', async () => {
    const server = await startFakeProvider();
    try {
      const provider = new AnthropicProvider({ apiKey: 'k', baseUrl: server.baseUrl });
      const recorder = new SpendRecorder({ model: () => MODEL });
      let messages: Message[] = [user(`first question, with the file: ${'const x = compute(y);\n'.repeat(600)}`)];
      const send = async (at: number) => {
        const req = request(messages, { model: MODEL, system: longSystem(3000), tools: [readFileTool], cacheTail: true });
        const { message } = await run(provider, req);
        recorder.handle({ type: 'usage', model: MODEL, usage: message.usage, shape: requestShape(req, at, 'anthropic') });
        return message;
      };
      messages = [...messages, await send(1000), user('second')];
      // A refill after a compaction: 24 messages of one block each, appended in one step.
      const refill = Array.from({ length: 24 }, (_, i) => user(`earlier note ${i}: ${'context '.repeat(40)}`));
      messages = [...messages, await send(2000), ...refill];
      await send(3000);
      const misses = recorder.state.misses ?? [];
      assert.deepEqual(
        misses.map((m) => m.reason),
        ['lookback'],
        'the provider read nothing of the earlier entry, and the panel says why',
      );
      assert.ok(cacheDetails(recorder.state).some((r) => r.value.startsWith('more than 20 blocks were added at once')));
      // OpenAI caches by exact prefix: the same append is no reason there.
      const before = request(messages.slice(0, 3), { model: 'gpt-5.5' });
      const after = request(messages, { model: 'gpt-5.5' });
      assert.equal(whatChanged(requestShape(before, 0, 'openai'), requestShape(after, 1000, 'openai')), undefined);
    } finally {
      await server.close();
    }
  });
});
