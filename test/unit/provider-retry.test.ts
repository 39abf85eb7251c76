import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { OpenAIProvider } from '../../src/providers/openai';
import { DEFAULT_RETRY_POLICY, retryDelay } from '../../src/providers/retry';
import type { StreamEvent } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { instantRetry, request, run, user } from '../fixtures/fake-provider/factories';

type RetryEvent = Extract<StreamEvent, { type: 'retry' }>;
const retries = (events: StreamEvent[]) => events.filter((e): e is RetryEvent => e.type === 'retry');

describe('provider: retries with backoff honouring retry-after, bounded', () => {
  let server: FakeProvider;
  before(async () => {
    server = await startFakeProvider();
  });
  after(() => server.close());

  const make = (name: string, retry: object) =>
    name === 'anthropic'
      ? new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl, retry })
      : new OpenAIProvider({ provider: 'openai', apiKey: 'sk-test', baseUrl: server.openaiBaseUrl, retry });

  for (const name of ['anthropic', 'openai']) {
    it(`${name}: waits what retry-after says, emits a retry event, then succeeds`, async () => {
      const t = instantRetry(3);
      server.script.push({ fault: 'rate_limit', retryAfterSeconds: 2 }, { fault: 'rate_limit', retryAfterSeconds: 5 }, { text: 'finally' });
      const before = server.requests.length;
      const { events, message } = await run(make(name, t.policy), request([user('hi')]));
      assert.equal(message.stopReason, 'end');
      assert.deepEqual(message.content, [{ type: 'text', text: 'finally' }]);
      assert.deepEqual(t.delays, [2000, 5000]);
      assert.deepEqual(
        retries(events).map((e) => [e.attempt, e.delayMs, e.error.kind]),
        [
          [1, 2000, 'rate_limit'],
          [2, 5000, 'rate_limit'],
        ],
      );
      assert.equal(server.requests.length - before, 3);
      assert.equal(events.filter((e) => e.type === 'start').length, 1);
    });

    it(`${name}: overload without retry-after backs off exponentially and stops after the bound`, async () => {
      const t = instantRetry(2);
      server.script.push({ fault: 'overloaded' }, { fault: 'overloaded' }, { fault: 'overloaded' }, { text: 'not reached' });
      const before = server.requests.length;
      const { events, message } = await run(make(name, t.policy), request([user('hi')]));
      assert.equal(message.stopReason, 'error');
      assert.equal(message.error?.kind, 'overloaded');
      assert.deepEqual(t.delays, [1000, 2000]);
      assert.equal(retries(events).length, 2);
      assert.equal(server.requests.length - before, 3, 'first attempt + 2 retries');
      server.script.length = 0;
    });
  }

  it('does not retry non-transient errors, nor a stream that already delivered text', async () => {
    const t = instantRetry(3);
    const p = make('anthropic', t.policy);
    server.script.push({ fault: 'auth' });
    assert.equal((await run(p, request([user('x')]))).message.error?.kind, 'auth');
    server.script.push({ fault: 'invalid_request' });
    assert.equal((await run(p, request([user('x')]))).message.error?.kind, 'invalid_request');
    server.script.push({ fault: 'drop', partialText: 'already shown' });
    const dropped = await run(p, request([user('x')]));
    assert.equal(dropped.message.error?.kind, 'network');
    assert.deepEqual(dropped.message.content, [{ type: 'text', text: 'already shown' }]);
    assert.deepEqual(t.delays, []);
  });

  it('retries a connection dropped before any content', async () => {
    const t = instantRetry(3);
    server.script.push({ fault: 'drop', partialText: '' }, { text: 'second time lucky' });
    const { message } = await run(make('openai', t.policy), request([user('x')]));
    assert.deepEqual(message.content, [{ type: 'text', text: 'second time lucky' }]);
    assert.deepEqual(t.delays, [1000]);
  });

  it('does not wait for a retry-after beyond the cap: the error is returned at once', async () => {
    const t = instantRetry(3);
    server.script.push({ fault: 'rate_limit', retryAfterSeconds: 3600 });
    const { message } = await run(make('anthropic', { ...t.policy, maxRetryAfterMs: 60_000 }), request([user('x')]));
    assert.equal(message.error?.kind, 'rate_limit');
    assert.equal(message.error?.retryAfterMs, 3_600_000);
    assert.deepEqual(t.delays, []);
  });

  it('an abort during the wait ends the stream as aborted', async () => {
    const controller = new AbortController();
    const policy = { maxRetries: 3, sleep: () => Promise.resolve(controller.abort()) };
    server.script.push({ fault: 'overloaded' }, { text: 'never' });
    const { message } = await run(make('anthropic', policy), request([user('x')]), controller.signal);
    assert.equal(message.stopReason, 'aborted');
    assert.equal(message.error?.kind, 'aborted');
    server.script.length = 0;
  });

  it('retryDelay: the default policy', () => {
    const overloaded = { kind: 'overloaded' as const, message: '' };
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => retryDelay(n, overloaded, DEFAULT_RETRY_POLICY)),
      [1000, 2000, 4000, 8000, undefined],
    );
    assert.equal(retryDelay(1, { kind: 'rate_limit', message: '', retryAfterMs: 12_000 }, DEFAULT_RETRY_POLICY), 12_000);
    assert.equal(retryDelay(1, { kind: 'auth', message: '' }, DEFAULT_RETRY_POLICY), undefined);
  });
});
