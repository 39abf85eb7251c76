import assert from 'node:assert/strict';
import { SpendRecorder } from '../../src/agent/spend-recorder';
import { requestShape } from '../../src/context/cache-truth';
import { cacheDetails } from '../../src/panel/cache-view';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { toAnthropicParams } from '../../src/providers/anthropic-convert';
import { OpenAIResponsesProvider } from '../../src/providers/openai-responses';
import { toResponsesParams } from '../../src/providers/openai-responses-convert';
import type { Message, ProviderRequest } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { AnthropicCacheSim, OpenAICacheSim } from '../fixtures/fake-provider/cache-sim';
import { longSystem, readFileTool, request, run, user } from '../fixtures/fake-provider/factories';

const MIN = 60_000;

describe('cache lifetime on the wire and in the fake provider', () => {
  it('Anthropic: a 1-hour request puts ttl "1h" on every breakpoint; the default sends none', () => {
    const req = request([user('hi')], { system: longSystem(50), cacheTail: true });
    const markers = (p: ReturnType<typeof toAnthropicParams>) => [
      ...(p.system as Array<{ cache_control?: unknown }>).map((s) => s.cache_control).filter(Boolean),
      ...p.messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []).map((b) => (b as { cache_control?: unknown }).cache_control))
        .filter(Boolean),
    ];
    const long = markers(toAnthropicParams({ ...req, cacheLifetime: '1h' }));
    assert.ok(long.length >= 2);
    for (const m of long) assert.deepEqual(m, { type: 'ephemeral', ttl: '1h' });
    for (const m of markers(toAnthropicParams(req))) assert.deepEqual(m, { type: 'ephemeral' });
  });

  it('OpenAI Responses: 24h asks prompt_cache_retention "24h", 5m "in_memory", none sends nothing', () => {
    const req: ProviderRequest = request([user('hi')], { model: 'gpt-5.1' });
    assert.equal(toResponsesParams({ ...req, cacheLifetime: '24h' }, true).prompt_cache_retention, '24h');
    assert.equal(toResponsesParams({ ...req, cacheLifetime: '5m' }, true).prompt_cache_retention, 'in_memory');
    assert.equal('prompt_cache_retention' in toResponsesParams(req, true), false);
  });

  it('the fake expires a 5-minute entry after 5 minutes and a 1-hour entry after an hour; a read refreshes it', () => {
    let now = 0;
    const sim = new AnthropicCacheSim(10, 20, () => now);
    const blocks = (ttlMs?: number) => [{ key: 'a', tokens: 50, marker: true, ttlMs }];
    assert.deepEqual(sim.account('m', blocks()), { cacheRead: 0, cacheWrite: 50, input: 0 });
    now += 4 * MIN;
    assert.equal(sim.account('m', blocks()).cacheRead, 50, 'read within 5 minutes (and refreshed)');
    now += 4 * MIN;
    assert.equal(sim.account('m', blocks()).cacheRead, 50, 'the read refreshed the lifetime');
    now += 6 * MIN;
    assert.equal(sim.account('m', blocks()).cacheRead, 0, 'expired after 6 idle minutes');

    now += 10 * MIN;
    const written = sim.account('m', [{ key: 'b', tokens: 40, marker: true, ttlMs: 60 * MIN }]);
    assert.deepEqual(written, { cacheRead: 0, cacheWrite: 40, input: 0, cacheWrite1h: 40 }, '1-hour writes are reported apart');
    now += 50 * MIN;
    assert.equal(sim.account('m', [{ key: 'b', tokens: 40, marker: true }]).cacheRead, 40, 'a 1-hour entry outlives 50 idle minutes');
    now += 61 * MIN;
    assert.equal(sim.account('m', [{ key: 'b', tokens: 40, marker: true }]).cacheRead, 0, 'and expires after an hour');
  });

  it('the fake keeps an OpenAI prefix 5 minutes in memory and 24 hours with extended retention', () => {
    let now = 0;
    const sim = new OpenAICacheSim(128, 128, undefined, () => now);
    const parts = ['x '.repeat(400)];
    sim.account('m', parts);
    now += 20 * MIN;
    assert.equal(sim.account('m', parts, 24 * 60 * MIN).cacheRead, 0, 'in memory: gone after 20 idle minutes');
    now += 20 * MIN;
    assert.ok(sim.account('m', parts).cacheRead > 0, 'written for 24h: still there 20 minutes later');
  });

  describe('through the SDKs against the fake, with a moving clock', () => {
    let server: FakeProvider;
    let now = 1_000_000;
    before(async () => {
      server = await startFakeProvider({ now: () => now });
    });
    after(() => server.close());

    it('Anthropic: 1-hour writes come back as cacheWrite1h and survive a 20-minute gap that expires 5-minute ones', async () => {
      const provider = new AnthropicProvider({ apiKey: 'k', baseUrl: server.baseUrl });
      const messages: Message[] = [user('Look at the parser.')];
      const base = { system: longSystem(400), tools: [readFileTool], cacheTail: true };
      const first = await run(provider, request(messages, { ...base, cacheLifetime: '1h' }));
      assert.ok(first.message.usage.cacheWrite > 1024);
      assert.equal(first.message.usage.cacheWrite1h, first.message.usage.cacheWrite, 'every write asked for 1 hour');
      now += 20 * MIN;
      const later = await run(provider, request(messages, { ...base, cacheLifetime: '1h' }));
      assert.ok(later.message.usage.cacheRead > 1024, 'read after 20 idle minutes');

      // Another conversation (its own system prompt) written for the default 5 minutes.
      const short = { ...base, system: longSystem(400).map((s) => ({ ...s, text: `Lexer work. ${s.text}` })) };
      const other: Message[] = [user('Look at the lexer.')];
      const written = await run(provider, request(other, short));
      assert.equal(written.message.usage.cacheWrite1h, undefined, 'no 1-hour writes without ttl');
      now += 20 * MIN;
      const expired = await run(provider, request(other, short));
      assert.equal(expired.message.usage.cacheRead, 0, 'the 5-minute entry expired in 20 idle minutes');
      assert.equal(expired.message.usage.cacheWrite, written.message.usage.cacheWrite, 'written again');
    });

    it('Anthropic: a 1-hour breakpoint after a 5-minute one is refused', async () => {
      const body = toAnthropicParams(request([user('x')], { system: longSystem(50), cacheTail: true }));
      (body.messages[0].content as Array<{ cache_control?: unknown }>)[0].cache_control = { type: 'ephemeral', ttl: '1h' };
      const res = await fetch(`${server.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ ...body, stream: false }),
      });
      assert.equal(res.status, 400);
      assert.match(JSON.stringify(await res.json()), /ttl=1h must not come after/);
    });

    it('OpenAI: prompt_cache_retention 24h keeps the prefix across a 30-minute gap', async () => {
      const provider = new OpenAIResponsesProvider({ apiKey: 'k', baseUrl: server.openaiBaseUrl });
      const req = request([user('Explain the cache layer.')], { model: 'gpt-5.1', system: longSystem(400) });
      await run(provider, { ...req, cacheLifetime: '24h' });
      now += 30 * MIN;
      const kept = await run(provider, { ...req, cacheLifetime: '24h' });
      assert.ok(kept.message.usage.cacheRead > 1024);
      assert.equal(server.requests.at(-1)!.body.prompt_cache_retention, '24h');
    });
  });
});

describe('cache lifetime in the session: misses, history and the details line', () => {
  it('a 20-minute gap is an expired miss at 5 minutes and none at 1 hour; the details show the 1-hour price', async () => {
    let now = 5_000_000;
    const server = await startFakeProvider({ now: () => now });
    try {
      const provider = new AnthropicProvider({ apiKey: 'k', baseUrl: server.baseUrl });
      const play = async (cacheLifetime: ProviderRequest['cacheLifetime'], topic: string) => {
        const recorder = new SpendRecorder({ model: () => 'claude-sonnet-5-5' });
        const messages: Message[] = [user(`Work on the ${topic}.`)];
        for (let i = 0; i < 4; i++) {
          const req = request([...messages], {
            model: 'claude-sonnet-5-5',
            system: longSystem(400),
            tools: [readFileTool],
            cacheTail: true,
            cacheLifetime,
          });
          const { message } = await run(provider, req);
          recorder.handle({ type: 'usage', model: message.model, usage: message.usage, shape: requestShape(req, now) });
          messages.push(message, user(`And step ${i} of the ${topic}.`));
          now += 20 * MIN;
        }
        return recorder;
      };
      const short = await play(undefined, 'parser');
      assert.deepEqual(
        (short.state.misses ?? []).map((m) => m.reason),
        ['expired', 'expired', 'expired'],
      );
      assert.equal(short.cacheHistory().length, 4);
      const long = await play('1h', 'lexer');
      assert.deepEqual(long.state.misses, [], 'nothing expires within the hour');
      assert.equal(long.state.lastCache?.lifetime, '1h');
      assert.match(cacheDetails(long.state)[0].value, /kept 1 hour \(writes cost 2× input, 1\.25× for 5 minutes\)/);
      assert.ok(long.state.spend.dollars.cacheWrite > 0);
    } finally {
      await server.close();
    }
  });
});
