import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { defaultIdleTimeouts, IdleWatchdog } from '../../src/providers/idle-watchdog';
import { manualTimers } from '../fixtures/manual-timers';
import { OpenAIProvider } from '../../src/providers/openai';
import { OpenAIResponsesProvider } from '../../src/providers/openai-responses';
import type { Provider } from '../../src/providers/provider';
import { startFakeProvider, type FakeFault, type FakeProvider } from '../fixtures/fake-provider';
import { instantRetry, request, run, user } from '../fixtures/fake-provider/factories';

/**
 * A stream that stays open without data (silence, headers only, keep-alive pings)
 * ends with a retryable `network` error instead of hanging the turn until the user presses Stop.
 * The SDK tests use short idle timeouts; they synchronise on the stream's end, never on sleeps.
 */

describe('provider: idle timeout watchdog', () => {
  it('waits firstEventMs for the first event, then betweenEventsMs after each one', () => {
    const t = manualTimers();
    const w = new IdleWatchdog(new AbortController().signal, { firstEventMs: 500, betweenEventsMs: 200 }, t);
    assert.equal(t.armedMs, 500);
    w.touch();
    assert.equal(t.armedMs, 200);
    assert.equal(w.signal.aborted, false);
    t.fire();
    assert.equal(w.signal.aborted, true);
    assert.equal(w.error()?.kind, 'network');
    assert.match(w.error()!.message, /sent no data for 200 ms.*idle timeout/);
    w.dispose();
  });

  it('defaults: a minute to start and between events; local compatible servers get the whole two-minute idle budget to load a model', () => {
    assert.deepEqual(defaultIdleTimeouts('anthropic'), { firstEventMs: 60_000, betweenEventsMs: 60_000 });
    assert.deepEqual(defaultIdleTimeouts('openai'), { firstEventMs: 60_000, betweenEventsMs: 60_000 });
    assert.deepEqual(defaultIdleTimeouts('openai-compatible'), { firstEventMs: 120_000, betweenEventsMs: 60_000 });
  });

  it('says when the provider never started, and stays quiet when the caller aborted', () => {
    const t = manualTimers();
    const w = new IdleWatchdog(new AbortController().signal, { firstEventMs: 60_000, betweenEventsMs: 1 }, t);
    t.fire();
    assert.match(w.error()!.message, /did not start answering for 60 s/);
    const caller = new AbortController();
    const t2 = manualTimers();
    const w2 = new IdleWatchdog(caller.signal, { firstEventMs: 10, betweenEventsMs: 10 }, t2);
    caller.abort();
    assert.equal(w2.signal.aborted, true);
    t2.fire();
    assert.equal(w2.error(), undefined, 'a user abort is not an idle timeout');
    w2.dispose();
    assert.equal(t2.armedMs, undefined, 'dispose clears the timer');
  });
});

describe('provider: a silent stream ends with a network error through the real SDKs', () => {
  let server: FakeProvider;
  const idleTimeouts = { firstEventMs: 300, betweenEventsMs: 300 };
  before(async () => {
    server = await startFakeProvider();
  });
  after(() => server.close());

  const adapters: Array<[string, () => Provider]> = [
    ['anthropic', () => new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl, idleTimeouts, retry: { maxRetries: 0 } })],
    [
      'openai',
      () =>
        new OpenAIProvider({
          provider: 'openai',
          apiKey: 'sk-test',
          baseUrl: server.openaiBaseUrl,
          idleTimeouts,
          retry: { maxRetries: 0 },
        }),
    ],
  ];
  const stalls: Array<[string, FakeFault, RegExp]> = [
    ['silence (no headers)', { fault: 'silent' }, /did not start answering/],
    ['headers only', { fault: 'headers_only' }, /did not start answering/],
    ['keep-alive comments after the first event', { fault: 'pings', intervalMs: 20 }, /sent no data/],
  ];

  for (const [id, make] of adapters) {
    for (const [name, fault, words] of stalls) {
      it(`${id}: ${name}`, async () => {
        server.script.push(fault);
        const { message } = await run(make(), request([user('hello?')]));
        assert.equal(message.stopReason, 'error');
        assert.equal(message.error?.kind, 'network');
        assert.match(message.error.message, words);
        assert.match(message.error.message, /idle timeout/);
      });
    }
  }

  it('openai (Responses API): silence and headers only end with a network error too', async () => {
    const responses = new OpenAIResponsesProvider({
      apiKey: 'sk-test',
      baseUrl: server.openaiBaseUrl,
      idleTimeouts,
      retry: { maxRetries: 0 },
    });
    for (const fault of [{ fault: 'silent' }, { fault: 'headers_only' }] as const) {
      server.script.push(fault);
      const { message } = await run(responses, request([user('hello?')]));
      assert.equal(message.error?.kind, 'network', fault.fault);
      assert.match(message.error?.message ?? '', /idle timeout/);
    }
  });

  it("anthropic: Anthropic's own `event: ping` keep-alives do not count as data either", async () => {
    server.script.push({ fault: 'pings', as: 'event', intervalMs: 20 });
    const { message } = await run(adapters[0][1](), request([user('hello?')]));
    assert.equal(message.error?.kind, 'network');
    assert.match(message.error.message, /sent no data/);
  });

  it('a stall before any content is retried like any network error, and the retry succeeds', async () => {
    for (const [id, fault] of [
      ['anthropic', { fault: 'silent' }],
      ['openai', { fault: 'headers_only' }],
    ] as const) {
      const { policy, delays } = instantRetry(2);
      // Generous bounds: the second attempt must never time out, however loaded the machine.
      const generous = { firstEventMs: 1500, betweenEventsMs: 5000 };
      const provider =
        id === 'anthropic'
          ? new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl, idleTimeouts: generous, retry: policy })
          : new OpenAIProvider({
              provider: 'openai',
              apiKey: 'sk-test',
              baseUrl: server.openaiBaseUrl,
              idleTimeouts: generous,
              retry: policy,
            });
      server.script.push(fault, { text: 'here I am' });
      const { events, message } = await run(provider, request([user('hello?')]));
      const retry = events.find((e) => e.type === 'retry');
      assert.ok(retry && retry.type === 'retry' && retry.error.kind === 'network', id);
      assert.equal(delays.length, 1);
      assert.equal(message.stopReason, 'end', id);
      assert.deepEqual(message.content, [{ type: 'text', text: 'here I am' }]);
    }
  });

  it('a stall after some text keeps the text, marks it partial and is not retried', async () => {
    for (const [id, make] of adapters) {
      const before = server.requests.length;
      server.script.push({ fault: 'pings', partialText: 'I was saying', intervalMs: 20 });
      const { message } = await run(make(), request([user('hello?')]));
      assert.equal(message.error?.kind, 'network', id);
      assert.equal(message.partial, true);
      assert.deepEqual(message.content, [{ type: 'text', text: 'I was saying' }]);
      assert.equal(server.requests.length, before + 1);
    }
  });
});
