import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { createProvider } from '../../src/providers/create-provider';
import { OpenAIProvider } from '../../src/providers/openai';
import type { Provider } from '../../src/providers/provider';
import { startFakeProvider, type FakeFault, type FakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';

const ANTHROPIC_KEY = 'sk-ant-api03-SECRETSECRETSECRET';
const OPENAI_KEY = 'sk-proj-SECRETSECRETSECRET1234';
const noRetry = { maxRetries: 0 };

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('provider: each failure ends the stream as data with the right kind', () => {
  let server: FakeProvider;
  let providers: Array<{ name: string; p: Provider }>;
  before(async () => {
    server = await startFakeProvider({ windows: { tiny: 50 } });
    providers = [
      { name: 'anthropic', p: new AnthropicProvider({ apiKey: ANTHROPIC_KEY, baseUrl: server.baseUrl, retry: noRetry }) },
      { name: 'openai', p: new OpenAIProvider({ provider: 'openai', apiKey: OPENAI_KEY, baseUrl: server.openaiBaseUrl, retry: noRetry }) },
    ];
  });
  after(() => server.close());

  const cases: Array<{ fault: FakeFault; kind: string; status?: number; partial?: string }> = [
    { fault: { fault: 'rate_limit', retryAfterSeconds: 7 }, kind: 'rate_limit', status: 429 },
    { fault: { fault: 'overloaded' }, kind: 'overloaded' },
    { fault: { fault: 'auth' }, kind: 'auth', status: 401 },
    { fault: { fault: 'invalid_request' }, kind: 'invalid_request', status: 400 },
    { fault: { fault: 'overflow' }, kind: 'context_overflow', status: 400 },
    { fault: { fault: 'drop', partialText: 'Half an ans' }, kind: 'network', partial: 'Half an ans' },
    { fault: { fault: 'malformed', partialText: 'Some text' }, kind: 'network', partial: 'Some text' },
    { fault: { fault: 'stream_error', partialText: 'Begun' }, kind: 'overloaded', partial: 'Begun' },
  ];

  for (const c of cases) {
    it(`${c.fault.fault} → ${c.kind}`, async () => {
      for (const { name, p } of providers) {
        server.script.push(c.fault);
        const { message } = await run(p, request([user('hello')]));
        assert.equal(message.stopReason, 'error', name);
        assert.equal(message.error?.kind, c.kind, `${name}: ${message.error?.message}`);
        if (c.status) assert.equal(message.error?.status, c.status, name);
        if (c.partial !== undefined) {
          assert.equal(message.partial, true, `${name}: marked partial`);
          assert.deepEqual(message.content, [{ type: 'text', text: c.partial }], `${name}: partial text kept`);
        }
        assert.ok(!message.error.message.includes('SECRET'), `${name}: no key in "${message.error.message}"`);
      }
    });
  }

  it('rate_limit carries the retry-after the provider gave', async () => {
    for (const { p } of providers) {
      server.script.push({ fault: 'rate_limit', retryAfterSeconds: 7 });
      const { message } = await run(p, request([user('hello')]));
      assert.equal(message.error?.retryAfterMs, 7000);
    }
  });

  it("a request over the model window gets each provider's real overflow error → context_overflow", async () => {
    for (const { name, p } of providers) {
      const { message } = await run(
        p,
        request([user('this prompt is certainly longer than fifty tokens once the system prompt is there '.repeat(3))], {
          model: 'tiny',
          maxOutputTokens: 10,
        }),
      );
      assert.equal(message.error?.kind, 'context_overflow', name);
      assert.match(
        message.error.message,
        name === 'anthropic' ? /prompt is too long: \d+ tokens > 50 maximum/ : /maximum context length is 50 tokens/,
      );
      assert.equal(server.requests.at(-1)!.outcome, 'overflow');
    }
  });

  it('a refused connection → network; a missing key → auth without any request', async () => {
    const port = await freePort();
    const dead = [
      new AnthropicProvider({ apiKey: ANTHROPIC_KEY, baseUrl: `http://127.0.0.1:${port}`, retry: noRetry }),
      new OpenAIProvider({ provider: 'openai', apiKey: OPENAI_KEY, baseUrl: `http://127.0.0.1:${port}/v1`, retry: noRetry }),
    ];
    for (const p of dead) {
      const { message } = await run(p, request([user('hello')]));
      assert.equal(message.error?.kind, 'network', message.error?.message);
      assert.equal(message.partial, undefined, 'nothing arrived, so nothing is partial');
    }
    const before = server.requests.length;
    for (const id of ['anthropic', 'openai'] as const) {
      const { message } = await run(createProvider({ provider: id, baseUrl: server.baseUrl }), request([user('x')]));
      assert.equal(message.error?.kind, 'auth');
      assert.match(message.error.message, /Set API Key/);
    }
    assert.equal(server.requests.length, before);
  });

  it('a wrong key is reported as auth and the echoed key is scrubbed', async () => {
    const strict = await startFakeProvider({ apiKey: 'the-right-key' });
    try {
      const p = new OpenAIProvider({ provider: 'openai', apiKey: OPENAI_KEY, baseUrl: strict.openaiBaseUrl, retry: noRetry });
      const { message } = await run(p, request([user('x')]));
      assert.equal(message.error?.kind, 'auth');
      assert.match(message.error.message, /Incorrect API key provided/);
      assert.ok(!/SECRET|1234/.test(message.error.message), message.error.message);
    } finally {
      await strict.close();
    }
  });
});
