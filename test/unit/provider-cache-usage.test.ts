import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { OpenAIProvider } from '../../src/providers/openai';
import type { Message, Usage } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { longSystem, readFileTool, request, run, user } from '../fixtures/fake-provider/factories';

const total = (u: Usage) => u.input + u.cacheRead + u.cacheWrite;
const share = (u: Usage) => u.cacheRead / total(u);

describe('provider: usage and cache figures across a 20-request conversation', () => {
  let server: FakeProvider;
  before(async () => {
    server = await startFakeProvider();
  });
  after(() => server.close());

  it('Anthropic: the tail breakpoint makes each request read the whole previous prompt from cache', async () => {
    const provider = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl });
    const messages: Message[] = [];
    const usages: Usage[] = [];
    for (let i = 0; i < 20; i++) {
      messages.push(user(`Step ${i}: please look at module ${i} and explain what it does in a few sentences.`));
      server.script.push({ text: `Module ${i} wires the parser to the cache layer and handles retries for step ${i}.` });
      const { message } = await run(provider, request(messages, { system: longSystem(400), tools: [readFileTool], cacheTail: true }));
      assert.equal(message.stopReason, 'end');
      const rec = server.requests.at(-1)!;
      assert.ok(rec.cacheMarkers.length <= 4, 'at most 4 breakpoints');
      assert.deepEqual(
        rec.cacheMarkers.filter((m) => m.startsWith('tools')),
        [],
        'tools never carry a marker',
      );
      assert.equal(total(message.usage), rec.inputTokens, 'input + cacheRead + cacheWrite is the whole prompt');
      usages.push(message.usage);
      messages.push(message);
    }
    assert.equal(usages[0].cacheRead, 0, 'nothing cached before the first request');
    assert.ok(usages[0].cacheWrite > 1024, 'the first request writes the system prefix and the tail');
    for (let i = 1; i < 20; i++) {
      assert.equal(usages[i].cacheRead, total(usages[i - 1]), `request ${i} reads the previous prompt`);
      assert.ok(usages[i].cacheWrite > 0 && usages[i].cacheWrite < 200, 'only the new turn is written');
    }
    for (let i = 2; i < 20; i++) assert.ok(share(usages[i]) >= share(usages[i - 1]) - 0.01, `share rises (request ${i})`);
    assert.ok(share(usages[19]) > 0.9, `steady-state cache-read share is high (${share(usages[19]).toFixed(3)})`);
  });

  it('Anthropic: prefixes under the 1,024-token minimum are not cached', async () => {
    const provider = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl });
    const req = request([user('short')], { system: [{ id: 'base', text: 'Short system.', cacheBreakpoint: true }], cacheTail: true });
    const a = await run(provider, req);
    const b = await run(provider, req);
    assert.equal(server.requests.at(-1)!.cacheMarkers.length, 2);
    for (const m of [a.message, b.message]) {
      assert.equal(m.usage.cacheRead, 0);
      assert.equal(m.usage.cacheWrite, 0);
    }
  });

  it('OpenAI: automatic prefix caching from 1,024 tokens in 128-token steps, cached tokens split from input', async () => {
    const provider = new OpenAIProvider({ provider: 'openai', apiKey: 'sk-test', baseUrl: server.openaiBaseUrl });
    const messages: Message[] = [];
    const usages: Usage[] = [];
    for (let i = 0; i < 20; i++) {
      messages.push(user(`Step ${i}: please look at module ${i} and explain what it does in a few sentences.`));
      server.script.push({ text: `Module ${i} wires the parser to the cache layer and handles retries for step ${i}.` });
      const { message } = await run(
        provider,
        request(messages, { model: 'gpt-fake', system: longSystem(400), promptCacheKey: 'ses_cache' }),
      );
      usages.push(message.usage);
      assert.equal(total(message.usage), server.requests.at(-1)!.inputTokens);
      messages.push(message);
    }
    assert.equal(usages[0].cacheRead, 0);
    for (let i = 1; i < 20; i++) {
      const u = usages[i];
      assert.ok(u.cacheRead >= 1024 && u.cacheRead % 128 === 0, `request ${i}: cached ${u.cacheRead} is ≥1024 in 128 steps`);
      assert.ok(u.cacheRead <= total(usages[i - 1]), 'never more than the previous prompt');
      assert.ok(total(usages[i - 1]) - u.cacheRead < 128 + 64, 'reads all of the previous prompt up to the last full step');
      assert.equal(u.cacheWrite, 0);
    }
    assert.ok(share(usages[19]) > 0.8);
  });

  it('OpenAI: a prompt under 1,024 tokens is never cached', async () => {
    const provider = new OpenAIProvider({ provider: 'openai', apiKey: 'sk-test', baseUrl: server.openaiBaseUrl });
    await run(provider, request([user('tiny')], { model: 'gpt-tiny' }));
    const { message } = await run(provider, request([user('tiny')], { model: 'gpt-tiny' }));
    assert.equal(message.usage.cacheRead, 0);
  });
});
