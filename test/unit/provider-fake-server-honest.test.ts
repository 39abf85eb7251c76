import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { OpenAIProvider } from '../../src/providers/openai';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { fakeTokenizer } from '../fixtures/fake-provider/harsh-tokens';
import { request, run, user } from '../fixtures/fake-provider/factories';

describe('fake provider: it does not flatter us', () => {
  let server: FakeProvider;
  afterEach(() => server?.close());

  it('enforces max_tokens on both protocols: input + max_tokens over the window is the real overflow error', async () => {
    server = await startFakeProvider({ windows: { small: 3_000 } });
    const text = 'plain words for the window check '.repeat(60); // ≈ 400 tokens
    const anthropic = new AnthropicProvider({ apiKey: 'k', baseUrl: server.baseUrl, retry: { maxRetries: 0 } });
    const openai = new OpenAIProvider({ provider: 'openai', apiKey: 'k', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } });
    for (const p of [anthropic, openai]) {
      const fits = await run(p, request([user(text)], { model: 'small', maxOutputTokens: 1_000 }));
      assert.equal(fits.message.stopReason, 'end', `${p.id}: input + 1,000 fits 3,000`);
      const over = await run(p, request([user(text)], { model: 'small', maxOutputTokens: 2_800 }));
      assert.equal(over.message.stopReason, 'error');
      assert.equal(over.message.error?.kind, 'context_overflow', `${p.id}: ${over.message.error?.message}`);
    }
    const refused = server.requests.filter((r) => r.outcome === 'overflow');
    assert.deepEqual(
      refused.map((r) => r.protocol),
      ['anthropic', 'openai'],
    );
    assert.ok(
      refused.every((r) => r.inputTokens < 3_000),
      'refused for the reservation, not the prompt alone',
    );
  });

  it('accepts the API key the way the Anthropic SDK sends it: x-api-key or Authorization: Bearer', async () => {
    server = await startFakeProvider({ apiKey: 'secret' });
    const body = { model: 'fake-model', max_tokens: 50, messages: [{ role: 'user' as const, content: 'hi' }] };
    const viaKey = await new Anthropic({ apiKey: 'secret', baseURL: server.baseUrl, maxRetries: 0 }).messages.stream(body).finalMessage();
    const viaBearer = await new Anthropic({ authToken: 'secret', apiKey: null, baseURL: server.baseUrl, maxRetries: 0 }).messages
      .stream(body)
      .finalMessage();
    assert.equal(viaKey.type, 'message');
    assert.equal(viaBearer.type, 'message');
    assert.equal(server.requests.at(-1)?.headers.authorization, 'Bearer secret');
    await assert.rejects(
      new Anthropic({ authToken: 'wrong', apiKey: null, baseURL: server.baseUrl, maxRetries: 0 }).messages.stream(body).finalMessage(),
      /401|invalid x-api-key/,
    );
  });

  it('can count with a harsher tokenizer than the one Headroom estimates with, most of all on non-Latin text', async () => {
    const o200k = fakeTokenizer('o200k');
    const harsh = fakeTokenizer('harsh');
    const english = 'The agent reads the file and reports what it found. '.repeat(40);
    const cjk = '上下文窗口不会溢出，也不会悄悄遗忘。'.repeat(40);
    assert.ok(harsh.count(english) >= o200k.count(english) * 1.15);
    assert.ok(harsh.count(cjk) / o200k.count(cjk) > harsh.count(english) / o200k.count(english) + 0.1);
    server = await startFakeProvider({ tokenizer: 'harsh' });
    const p = new OpenAIProvider({ provider: 'openai', apiKey: 'k', baseUrl: server.openaiBaseUrl });
    await run(p, request([user(cjk)]));
    assert.ok(server.requests[0].inputTokens >= harsh.count(cjk));
  });
});
