import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { OpenAIProvider } from '../../src/providers/openai';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { AnthropicCacheSim } from '../fixtures/fake-provider/cache-sim';
import { countTokens } from '../fixtures/fake-provider/tokens';
import { longSystem, readFileTool, request, run, user } from '../fixtures/fake-provider/factories';

describe('fake provider: the server tests rely on', () => {
  let server: FakeProvider;
  before(async () => {
    server = await startFakeProvider({ windows: { small: 3000 } });
  });
  after(() => server.close());

  it('echoes the last user text when the script is empty, on both protocols', async () => {
    const a = await run(new AnthropicProvider({ apiKey: 'k-anthropic', baseUrl: server.baseUrl }), request([user('ping one')]));
    const o = await run(
      new OpenAIProvider({ provider: 'openai', apiKey: 'k-openai', baseUrl: server.openaiBaseUrl }),
      request([user('ping two')]),
    );
    assert.deepEqual(a.message.content, [{ type: 'text', text: 'echo: ping one' }]);
    assert.deepEqual(o.message.content, [{ type: 'text', text: 'echo: ping two' }]);
    assert.deepEqual(
      server.requests.slice(-2).map((r) => [r.protocol, r.outcome]),
      [
        ['anthropic', 'echo'],
        ['openai', 'echo'],
      ],
    );
  });

  it('records body, size in tokens, cache markers and tools; function steps see the request', async () => {
    let seenTools: string[] = [];
    server.script.push((rec) => {
      seenTools = rec.tools;
      return { text: `you sent ${rec.inputTokens} tokens` };
    });
    const p = new AnthropicProvider({ apiKey: 'k-anthropic', baseUrl: server.baseUrl });
    const { message } = await run(p, request([user('hello')], { system: longSystem(300), tools: [readFileTool], cacheTail: true }));
    const rec = server.requests.at(-1)!;
    assert.deepEqual(seenTools, ['read_file']);
    assert.deepEqual(rec.cacheMarkers, ['system[0]', 'messages[0].content[0]']);
    assert.ok(rec.inputTokens > 1000);
    assert.deepEqual(message.content, [{ type: 'text', text: `you sent ${rec.inputTokens} tokens` }]);
    assert.equal(rec.usage?.cacheWrite, rec.inputTokens, 'first request writes the whole prefix up to the tail marker');
    assert.equal((rec.body as { model: string }).model, 'fake-model');
  });

  it('enforces the per-model window and does not consume the script on overflow', async () => {
    server.script.push({ text: 'kept for the next fitting request' });
    const p = new AnthropicProvider({ apiKey: 'k', baseUrl: server.baseUrl, retry: { maxRetries: 0 } });
    const over = await run(p, request([user('x')], { model: 'small', system: longSystem(1000) }));
    assert.equal(over.message.error?.kind, 'context_overflow');
    assert.equal(server.requests.at(-1)!.status, 400);
    const fits = await run(p, request([user('x')], { model: 'small' }));
    assert.deepEqual(fits.message.content, [{ type: 'text', text: 'kept for the next fitting request' }]);
  });

  it('simulates Anthropic lookback: a breakpoint finds a prefix written up to 20 blocks earlier', () => {
    const sim = new AnthropicCacheSim(10, 20);
    const block = (k: string, marker = false) => ({ key: k, tokens: 10, marker });
    const first = [block('a'), block('b', true)];
    assert.deepEqual(sim.account('m', first), { cacheRead: 0, cacheWrite: 20, input: 0 });
    const later = [block('a'), block('b'), ...Array.from({ length: 5 }, (_, i) => block(`n${i}`)), block('t', true)];
    assert.deepEqual(sim.account('m', later), { cacheRead: 20, cacheWrite: 60, input: 0 });
    const changed = [block('a'), block('B'), block('t', true)];
    assert.equal(sim.account('m', changed).cacheRead, 0, 'a changed block breaks the prefix');
    assert.equal(sim.account('other-model', first).cacheRead, 0, 'caches are per model');
  });

  it('counts tokens with guards: special tokens allowed as text, long runs are fast enough to finish', () => {
    assert.ok(countTokens('hello <|endoftext|> world') > 3);
    assert.ok(countTokens('a'.repeat(100_000)) > 0);
    assert.equal(countTokens(''), 0);
  });

  it('runs standalone and prints its base URL', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/fake-provider-cli.ts', '--port', '0', '--window', '5000'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
      const url = chunk.toString().trim().split('\n')[0];
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/v1/models`);
      assert.equal(res.status, 200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
