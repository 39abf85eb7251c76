import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInputCounter } from '../../src/providers/input-counters';
import { OpenAIProvider } from '../../src/providers/openai';
import { doubtfulCount, serverTokenCounter } from '../../src/providers/server-tokenize';
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

/** Which counter a provider gets, and a server's count taken as evidence, not truth. */
describe('provider: the input counter of an OpenAI-compatible server', () => {
  let server: FakeProvider | undefined;
  afterEach(async () => server?.close());
  const big = request([user('第一节：上下文窗口不会溢出。 '.repeat(200)), user(`log line ${'GET /index.html 200 '.repeat(300)}`)], {
    model: MODEL,
    tools: TOOLS,
  });

  it('counts with the server only where it is llama.cpp or vLLM (not Ollama, LM Studio, an unidentified server)', async () => {
    for (const kind of ['llamacpp', 'vllm'] as const) {
      server = await startFakeProvider({ flavour: kind, windows: { [MODEL]: 32_768 }, tokenizer: 'sentencepiece' });
      const counter = createInputCounter({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, serverKind: kind });
      const counted = await counter?.countInput(big);
      assert.ok(counted !== undefined && counted > 0, `${kind}: ${counted}`);
      assert.equal(server.counts.length, 1, `${kind} was asked once`);
      await server.close();
      server = undefined;
    }
    for (const serverKind of ['ollama', 'lmstudio', undefined] as const)
      assert.equal(
        createInputCounter({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', serverKind }),
        undefined,
        serverKind,
      );
    assert.equal(createInputCounter({ provider: 'openai-compatible', baseUrl: undefined, serverKind: 'vllm' }), undefined, 'no base URL');
  });

  it('refuses a count far below what the text sent allows (a server that says a large prompt is small), and says so', async () => {
    const problems: string[] = [];
    const lying = (count: number) =>
      createInputCounter({
        provider: 'openai-compatible',
        baseUrl: 'http://x/v1',
        serverKind: 'vllm',
        fetch: () => Promise.resolve({ ok: true, json: () => Promise.resolve({ count }) }),
        onError: (m) => problems.push(m),
      })!;
    const chars = JSON.stringify(big.messages).length;
    const bytes = Buffer.byteLength(JSON.stringify(big.messages), 'utf8');
    // The attack: a server (or whatever answers at its URL) claims the prompt fits easily.
    assert.equal(await lying(Math.floor(chars / 20)).countInput(big), undefined, 'a token per 20 characters is no count');
    assert.equal(await lying(50).countInput(big), undefined);
    assert.match(problems.join('\n'), /counted \d+ tokens for \d+ characters of text, fewer than one token per 8 characters/);
    // Nor one that inflates it past one token a byte plus the template (it would compact for nothing).
    assert.equal(await lying(10 * bytes).countInput(big), undefined);
    assert.match(problems.at(-1)!, /more than one token per byte/);
    assert.equal(problems.length, 3);
    // A plausible answer is taken.
    assert.equal(await lying(Math.floor(chars / 3)).countInput(big), Math.floor(chars / 3));
  });

  it('refuses no honest count: every corpus class, with each tokenizer the fake has, is plausible', async () => {
    const dir = join(__dirname, '..', 'fixtures', 'corpus');
    const files = readdirSync(dir).filter((f) => f.endsWith('.txt'));
    for (const tokenizer of ['sentencepiece', 'harsh', 'o200k'] as const) {
      server = await startFakeProvider({ flavour: 'vllm', windows: { [MODEL]: 1_000_000 }, tokenizer });
      const count = serverTokenCounter({ baseUrl: server.openaiBaseUrl, kind: 'vllm' });
      for (const file of files) {
        const req = request([user(readFileSync(join(dir, file), 'utf8').slice(0, 6_000))], { model: MODEL, tools: TOOLS });
        const n = await count(req);
        assert.ok(n !== undefined, file);
        assert.equal(doubtfulCount(req, n), undefined, `${tokenizer} ${file}: ${n}`);
      }
      await server.close();
      server = undefined;
    }
  });
});
