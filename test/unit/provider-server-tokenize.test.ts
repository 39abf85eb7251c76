import assert from 'node:assert/strict';
import { OpenAIProvider } from '../../src/providers/openai';
import { serverTokenCounter } from '../../src/providers/server-tokenize';
import type { ToolDefinition } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';

const MODEL = 'mistral-7b-instruct';
const TOOLS: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

/** Counting before sending with the server's own tokenizer and template: llama.cpp and vLLM. */
describe('provider: a local server counts a request before it is sent', () => {
  let server: FakeProvider | undefined;
  afterEach(async () => server?.close());

  for (const kind of ['vllm', 'llamacpp'] as const) {
    it(`${kind}: the count matches what the server counts when the request is sent`, async () => {
      server = await startFakeProvider({ flavour: kind, windows: { [MODEL]: 32_768 }, tokenizer: 'sentencepiece' });
      const req = request([user('第一节：上下文窗口不会溢出。 '.repeat(40)), user('and some English prose to go with it')], {
        model: MODEL,
        tools: TOOLS,
      });
      const counted = await serverTokenCounter({ baseUrl: server.openaiBaseUrl, kind })(req);
      await run(new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } }), req);
      const sent = server.requests.at(-1)!.inputTokens;
      assert.ok(counted !== undefined);
      // vLLM renders the very chat request; llama.cpp's template gets the messages, the tools are counted as their JSON.
      const tolerance = kind === 'vllm' ? 0 : 0.02;
      assert.ok(Math.abs(counted - sent) <= tolerance * sent, `counted ${counted}, the server counted ${sent} when it was sent`);
    });
  }

  it('is undefined, never an error, when the server cannot count (another server, none at all, too slow)', async () => {
    server = await startFakeProvider({ flavour: 'ollama', windows: { [MODEL]: 8192 } });
    const req = request([user('hello')], { model: MODEL });
    assert.equal(await serverTokenCounter({ baseUrl: server.openaiBaseUrl, kind: 'llamacpp' })(req), undefined);
    assert.equal(await serverTokenCounter({ baseUrl: 'http://127.0.0.1:1/v1', kind: 'vllm', timeoutMs: 500 })(req), undefined);
    const malformed = await serverTokenCounter({
      baseUrl: 'http://x',
      kind: 'vllm',
      fetch: () => Promise.resolve({ ok: true, json: () => Promise.resolve({ count: 1e308 }) }),
    })(req);
    assert.equal(malformed, undefined);
  });
});
