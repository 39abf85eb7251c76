/**
 * A hostile or broken server cannot hold a turn or the host thread. Before: every attempt had its own
 * idle minute, so a silent vendor stream ended after 5.5 min (retries × idle timeout) and a
 * headers-only local stream after 15.5 min; one 16 MB server-sent-events line took 91 s to parse and
 * blocked the host for 3 s. Now one idle budget covers all attempts of a request, and every stream is
 * re-cut at event boundaries in linear time with a cap on one event. Outcomes are asserted (attempts,
 * errors, bytes), never tight timings: the figures are in bench/untrusted-input.bench.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { defaultIdleTimeouts, IdleBudget } from '../../src/providers/idle-watchdog';
import { manualTimers } from '../fixtures/manual-timers';
import { OpenAIProvider } from '../../src/providers/openai';
import { sseEventChunks } from '../../src/providers/sse-guard';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { instantRetry, request, run, user } from '../fixtures/fake-provider/factories';

describe('security: one idle budget per request, whatever the retries', function () {
  this.timeout(60_000);

  it('caps every attempt by what is left of the budget and makes the last idle error final', () => {
    let now = 0;
    const budget = new IdleBudget(120_000, () => now);
    const t1 = manualTimers();
    const w1 = budget.watch(new AbortController().signal, { firstEventMs: 60_000, betweenEventsMs: 60_000 }, t1);
    assert.equal(t1.armedMs, 60_000);
    now = 60_000;
    t1.fire();
    assert.equal(w1.error()?.kind, 'network');
    assert.equal(w1.error()?.retryable, undefined, 'half the budget is left: worth one more attempt');
    now = 61_000; // the retry's wait
    const t2 = manualTimers();
    const w2 = budget.watch(new AbortController().signal, { firstEventMs: 60_000, betweenEventsMs: 60_000 }, t2);
    assert.equal(t2.armedMs, 59_000);
    now = 120_000;
    t2.fire();
    assert.equal(w2.error()?.retryable, false);
  });

  it('gives a local server the whole budget to load its model, no more', () => {
    assert.equal(defaultIdleTimeouts('openai-compatible').firstEventMs, 120_000);
    assert.equal(defaultIdleTimeouts('anthropic').firstEventMs, 60_000);
  });

  describe('through the real SDKs', () => {
    let server: FakeProvider;
    before(async () => {
      server = await startFakeProvider();
    });
    after(() => server.close());

    for (const [id, fault] of [
      ['anthropic', 'silent'],
      ['openai-compatible', 'headers_only'],
    ] as const) {
      it(`${id}: a ${fault} stream with 4 retries allowed ends when the budget is spent, not after 5 attempts`, async () => {
        const { policy } = instantRetry(4);
        const retry = { ...policy, idleBudgetMs: 900 };
        const idleTimeouts = { firstEventMs: 400, betweenEventsMs: 400 };
        const provider =
          id === 'anthropic'
            ? new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl, idleTimeouts, retry })
            : new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, idleTimeouts, retry });
        const before = server.requests.length;
        for (let i = 0; i < 5; i++) server.script.push({ fault });
        const { message } = await run(provider, request([user('hello?')]));
        server.script.length = 0;
        assert.equal(message.error?.kind, 'network');
        assert.match(message.error?.message ?? '', /idle timeout/);
        const attempts = server.requests.length - before;
        assert.ok(attempts >= 1 && attempts <= 3, `${attempts} attempts`);
      });
    }
  });
});

/** A server that answers every request with event-stream headers and one event of `bytes` bytes, 64 KB a write. */
async function hugeEventServer(bytes: number): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let count = 0;
  const srv: Server = createServer((req, res) => {
    count++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    res.write('data: {"x":"');
    const pump = () => {
      while (sent < bytes && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end('"}\n\n');
    };
    pump();
    res.on('error', () => undefined);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => count,
    close: () => new Promise((r) => srv.close(() => r())),
  };
}

describe('security: server-sent events are cut at event boundaries, in linear time, with a size cap', function () {
  this.timeout(120_000);

  it('re-cuts any chunking of a stream into whole events, keeping every byte, whatever the line endings', async () => {
    const events = ['data: a\n\n', 'event: x\r\ndata: b\r\n\r\n', 'data: c\r\r', ': ping\n\n', 'data: d\ndata: e\n\n', 'data: tail'];
    const whole = Buffer.from(events.join(''));
    for (let seed = 1; seed <= 40; seed++) {
      const parts: Uint8Array[] = [];
      for (let at = 0; at < whole.length;) {
        const n = 1 + ((seed * 7 + at * 13) % 9);
        parts.push(whole.subarray(at, at + n));
        at += n;
      }
      const out: Buffer[] = [];
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (const p of parts) c.enqueue(p);
          c.close();
        },
      }).pipeThrough(sseEventChunks(1024));
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) out.push(Buffer.from(chunk));
      assert.equal(Buffer.concat(out).toString(), whole.toString(), `seed ${seed}`);
      for (const c of out.slice(0, -1))
        assert.match(c.toString(), /(\n\n|\r\n\r\n|\r\r)$/, `seed ${seed}: ${JSON.stringify(c.toString())}`);
    }
  });

  it('a 16 MB event ends the request with an error, once, instead of being parsed for minutes', async () => {
    const srv = await hugeEventServer(16 * 1024 * 1024);
    try {
      const provider = new OpenAIProvider({ provider: 'openai-compatible', baseUrl: srv.url, retry: instantRetry(4).policy });
      const { message } = await run(provider, request([user('hi')]));
      assert.equal(message.stopReason, 'error');
      assert.match(message.error?.message ?? '', /stream event larger than 8 MB/);
      assert.equal(srv.requests(), 1, 'not retried: it would only repeat');
    } finally {
      await srv.close();
    }
  });

  it('the Anthropic adapter caps an event the same way', async () => {
    const srv = await hugeEventServer(16 * 1024 * 1024);
    try {
      const provider = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: srv.url.replace(/\/v1$/, ''), retry: { maxRetries: 0 } });
      const { message } = await run(provider, request([user('hi')]));
      assert.equal(message.stopReason, 'error');
      assert.match(message.error?.message ?? '', /stream event larger than 8 MB/);
    } finally {
      await srv.close();
    }
  });
});
