import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { OpenAIProvider } from '../../src/providers/openai';
import type { Usage } from '../../src/providers/types';
import { MAX_REPORTED_TOKENS, tokenCount } from '../../src/providers/usage';
import type { HeadroomStore } from '../../src/store';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';
import { cleanup, open, tempRoot, user as storedUser } from '../fixtures/store/helpers';

/** Usage figures from a server are untrusted input. */

function assertSane(u: Usage): void {
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
    assert.ok(Number.isSafeInteger(u[k]) && u[k] >= 0 && u[k] <= MAX_REPORTED_TOKENS, `${k} = ${String(u[k])}`);
  }
}

describe('provider: usage figures are validated and clamped', () => {
  let server: FakeProvider;
  let root: string;
  let store: HeadroomStore;
  before(async () => {
    server = await startFakeProvider();
    root = tempRoot();
    store = await open(root);
  });
  after(async () => {
    await store.close();
    cleanup(root);
    await server.close();
  });

  it('tokenCount accepts counts and numeric strings, and maps everything else into [0, max]', () => {
    assert.equal(tokenCount(12), 12);
    assert.equal(tokenCount('1234'), 1234);
    assert.equal(tokenCount(7.9), 7);
    assert.equal(tokenCount(Number.NaN), 0);
    assert.equal(tokenCount('NaN'), 0);
    assert.equal(tokenCount('lots'), 0);
    assert.equal(tokenCount(null), 0);
    assert.equal(tokenCount({ n: 1 }), 0);
    assert.equal(tokenCount(-5), 0);
    assert.equal(tokenCount(1e308), MAX_REPORTED_TOKENS);
    assert.equal(tokenCount(Number.POSITIVE_INFINITY), MAX_REPORTED_TOKENS);
    assert.equal(tokenCount(undefined, 42), 42);
  });

  const hostile: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['strings', { prompt_tokens: 'many', completion_tokens: '12' }, { input_tokens: 'many', output_tokens: '12' }],
    [
      'NaN and null',
      { prompt_tokens: 'NaN', completion_tokens: null, prompt_tokens_details: { cached_tokens: 'x' } },
      { input_tokens: 'NaN', output_tokens: null, cache_read_input_tokens: 'NaN' },
    ],
    [
      'negative',
      { prompt_tokens: -100, completion_tokens: -1 },
      { input_tokens: -100, output_tokens: -1, cache_creation_input_tokens: -7 },
    ],
    [
      '1e308',
      { prompt_tokens: 1e308, completion_tokens: 1e308 },
      { input_tokens: 1e308, output_tokens: 1e308, cache_read_input_tokens: 1e308 },
    ],
  ];

  for (const [name, openaiUsage, anthropicUsage] of hostile) {
    it(`${name}: both adapters finish the turn with sane usage, and the turn saves`, async () => {
      const openai = new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl });
      server.script.push({ text: 'fine', rawUsage: openaiUsage });
      const a = await run(openai, request([user('hi')]));
      const anthropic = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl });
      server.script.push({ text: 'fine', rawUsage: anthropicUsage });
      const b = await run(anthropic, request([user('hi')]));
      for (const { message } of [a, b]) {
        assert.equal(message.stopReason, 'end', JSON.stringify(message.error));
        assertSane(message.usage);
        const { id } = await store.sessions.create('usage');
        await store.sessions.appendTurn(id, [storedUser('hi'), message]);
        const saved = await store.sessions.transcript(id);
        assert.deepEqual(saved[1].message, JSON.parse(JSON.stringify(message)));
      }
      if (name === '1e308') assert.equal(a.message.usage.output, MAX_REPORTED_TOKENS);
      if (name === 'strings') assert.equal(b.message.usage.output, 12);
    });
  }
});
