import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { testConnection } from '../../src/providers/connection-test';
import { createProvider } from '../../src/providers/create-provider';
import type { ProviderId } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';

describe('provider: Test connection against the fake provider', () => {
  let server: FakeProvider;
  before(async () => {
    server = await startFakeProvider({ apiKey: 'sk-right-key-123456' });
  });
  after(() => server.close());

  const test = (provider: ProviderId, apiKey: string, baseUrl: string, timeoutMs?: number) =>
    testConnection(
      createProvider({ provider, apiKey, baseUrl, retry: { maxRetries: 0 } }),
      { provider, model: 'fake-model', baseUrl, apiKey },
      timeoutMs,
    );

  it('says who answered, with one request of at most 16 output tokens through the SDK', async () => {
    for (const [provider, url] of [
      ['anthropic', server.baseUrl],
      ['openai', server.openaiBaseUrl],
      ['openai-compatible', server.openaiBaseUrl],
    ] as const) {
      const before = server.requests.length;
      const r = await test(provider, 'sk-right-key-123456', url);
      assert.deepEqual(r, { ok: true, message: `Connected: fake-model answered at ${url}.`, url }, provider);
      assert.equal(server.requests.length, before + 1, `${provider}: one request, no retries`);
      const body = server.requests.at(-1)!.body;
      assert.equal(body.max_tokens ?? body.max_output_tokens ?? body.max_completion_tokens, 16, provider);
    }
  });

  it('a 401 says the key was refused, where, and what to do, without the key', async () => {
    const r = await test('anthropic', 'sk-wrong-key-987654', server.baseUrl);
    assert.equal(r.ok, false);
    assert.equal(r.url, server.baseUrl);
    assert.match(
      r.message,
      new RegExp(
        `^${server.baseUrl.replace(/[.]/g, '\\.')} refused the API key \\(401\\)\\. Use Set API Key… to set a valid Anthropic API key\\.$`,
      ),
    );
    assert.doesNotMatch(r.message, /wrong-key/);
    assert.equal(server.requests.at(-1)!.status, 401);
    const o = await test('openai', 'sk-wrong-key-987654', server.openaiBaseUrl);
    assert.match(o.message, /refused the API key \(401\)/);
    assert.doesNotMatch(o.message, /wrong-key/);
  });

  it('an unreachable server says it could not reach the URL and to check the server and base URL', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    closed.close();
    const url = `http://127.0.0.1:${port}/v1`;
    const r = await test('openai-compatible', '', url);
    assert.deepEqual(r.ok, false);
    assert.equal(r.url, url);
    assert.match(r.message, new RegExp(`^Could not reach http://127\\.0\\.0\\.1:${port}/v1\\. Check that the server is running`));
  });

  it('a server that never answers is given up on after the timeout', async () => {
    const silent: Server = createServer(() => {});
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const started = Date.now();
      const r = await test('anthropic', 'sk-right-key-123456', url, 300);
      assert.ok(Date.now() - started < 5_000, 'bounded');
      assert.equal(r.ok, false);
      assert.match(r.message, new RegExp(`^No answer at ${url.replace(/[.]/g, '\\.')} within 0 s`));
    } finally {
      silent.close();
    }
  });
});
