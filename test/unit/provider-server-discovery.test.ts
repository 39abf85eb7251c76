import assert from 'node:assert/strict';
import { resolveModelLimits } from '../../src/context/models';
import { parseContextSettings } from '../../src/context/settings';
import { OpenAIProvider } from '../../src/providers/openai';
import {
  discoverServerWindow,
  OLLAMA_DEFAULT_CONTEXT,
  ServerWindowCache,
  serverRoot,
  type FetchLike,
} from '../../src/providers/server-discovery';
import { startFakeProvider, type FakeFlavour } from '../fixtures/fake-provider';
import { FLAVOUR_MODEL_MAX } from '../fixtures/fake-provider/local-servers';
import { request, run, user } from '../fixtures/fake-provider/factories';

const FLAVOURS: FakeFlavour[] = ['ollama', 'lmstudio', 'llamacpp', 'vllm'];
const MODEL = 'qwen2.5-coder:7b';

/** A fetch that answers from a table of `METHOD url` → body (404 otherwise), for server shapes the fake does not serve. */
function tableFetch(table: Record<string, unknown>): FetchLike {
  return (url, init) => {
    const body = table[`${init?.method ?? 'GET'} ${url}`];
    return Promise.resolve({ ok: body !== undefined, json: () => Promise.resolve(body) });
  };
}

describe('provider: local servers tell Headroom their real window', () => {
  for (const flavour of FLAVOURS) {
    it(`${flavour}: detects the server and reads the context it loaded, not the model maximum`, async () => {
      const server = await startFakeProvider({ flavour, windows: { [MODEL]: 8192 } });
      try {
        const found = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
        assert.equal(found?.kind, flavour);
        assert.equal(found?.contextWindow, 8192);
        if (flavour === 'ollama' || flavour === 'lmstudio') assert.equal(found?.modelMax, FLAVOUR_MODEL_MAX);
        if (flavour === 'ollama') assert.match(found.warnings.join(), /asks Ollama for exactly that/);
      } finally {
        await server.close();
      }
    });

    it(`${flavour}: a prompt over the window is refused in the server's words (classified as overflow) or, for Ollama, silently truncated and flagged`, async () => {
      const server = await startFakeProvider({ flavour, window: 300 });
      try {
        const p = new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } });
        const { message } = await run(p, request([user('word '.repeat(400))], { maxOutputTokens: 50 }));
        const rec = server.requests.at(-1)!;
        if (flavour === 'ollama') {
          assert.equal(message.stopReason, 'end');
          assert.ok(rec.silentlyTruncatedTokens! > 0);
        } else {
          assert.equal(message.error?.kind, 'context_overflow', message.error?.message);
          assert.equal(rec.silentlyTruncatedTokens, undefined);
        }
      } finally {
        await server.close();
      }
    });
  }

  it('gives up quietly on a server it does not know, or none at all', async () => {
    const plain = await startFakeProvider();
    try {
      assert.equal(await discoverServerWindow(plain.openaiBaseUrl, 'fake-model', fetch), undefined);
    } finally {
      await plain.close();
    }
    assert.equal(await discoverServerWindow('http://127.0.0.1:1/v1', 'm', fetch, 500), undefined);
    assert.equal(serverRoot('http://localhost:11434/v1/'), 'http://localhost:11434');
  });

  it("Ollama: a model not loaded yet is budgeted at its Modelfile num_ctx, else at Ollama's default, with a warning", async () => {
    const root = 'http://ollama:11434';
    const withNumCtx = await discoverServerWindow(
      `${root}/v1`,
      'llama3.1',
      tableFetch({
        [`GET ${root}/api/ps`]: { models: [] },
        [`POST ${root}/api/show`]: { parameters: 'num_ctx 16384\nstop "x"', model_info: { 'llama.context_length': 131072 } },
      }),
    );
    assert.equal(withNumCtx?.contextWindow, 16384);
    const bare = await discoverServerWindow(
      `${root}/v1`,
      'llama3.1',
      tableFetch({ [`GET ${root}/api/ps`]: { models: [] }, [`POST ${root}/api/show`]: { model_info: {} } }),
    );
    assert.equal(bare?.contextWindow, OLLAMA_DEFAULT_CONTEXT);
    assert.match(bare.warnings.join(), /not loaded/);
    // `llama3.1` is `llama3.1:latest` to Ollama.
    const loaded = await discoverServerWindow(
      `${root}/v1`,
      'llama3.1',
      tableFetch({ [`GET ${root}/api/ps`]: { models: [{ name: 'llama3.1:latest', context_length: 32768 }] } }),
    );
    assert.equal(loaded?.contextWindow, 32768);
  });

  it('llama.cpp: also reads a top-level n_ctx; vLLM: a single served model answers for any id', async () => {
    const root = 'http://box:8080';
    assert.equal((await discoverServerWindow(root, 'x', tableFetch({ [`GET ${root}/props`]: { n_ctx: 4096 } })))?.contextWindow, 4096);
    assert.equal(
      (
        await discoverServerWindow(
          root,
          'served-name',
          tableFetch({ [`GET ${root}/v1/models`]: { data: [{ id: 'org/model', max_model_len: 32768 }] } }),
        )
      )?.kind,
      'vllm',
    );
  });

  it('the reported window outranks the table and the default, and caps a larger setting', () => {
    const server = { contextWindow: 8192, kind: 'ollama' };
    const plain = resolveModelLimits(MODEL, 'openai-compatible', undefined, server);
    assert.deepEqual([plain.contextWindow, plain.source, plain.maxOutput], [8192, 'server', 2048]);
    const table = resolveModelLimits('gpt-4o', 'openai-compatible', undefined, server);
    assert.deepEqual([table.contextWindow, table.source], [8192, 'server']);
    const bigger = resolveModelLimits(
      MODEL,
      'openai-compatible',
      parseContextSettings({ models: { [MODEL]: { contextWindow: 32768 } } }).settings,
      server,
    );
    assert.deepEqual([bigger.contextWindow, bigger.source], [8192, 'server']);
    assert.match(bigger.warnings.join(), /larger than the 8192 tokens the ollama server uses/);
    const smaller = resolveModelLimits(
      MODEL,
      'openai-compatible',
      parseContextSettings({ providers: { 'openai-compatible': { contextWindow: 4096 } } }).settings,
      server,
    );
    assert.deepEqual([smaller.contextWindow, smaller.source], [4096, 'provider-setting']);
  });

  it('the cache asks a known server again after a while (Ollama reloads) and an unknown one never again', async () => {
    const root = 'http://ollama:11434';
    let ctx = 4096;
    let asked = 0;
    const counting: FetchLike = (url) => {
      asked++;
      const body = url === `${root}/api/ps` ? { models: [{ name: 'm:latest', context_length: ctx }] } : undefined;
      return Promise.resolve({ ok: body !== undefined, json: () => Promise.resolve(body) });
    };
    let now = 0;
    const cache = new ServerWindowCache(counting, 30_000, () => now);
    assert.equal((await cache.get(`${root}/v1`, 'm'))?.contextWindow, 4096);
    ctx = 32768;
    now = 10_000;
    assert.equal((await cache.get(`${root}/v1`, 'm'))?.contextWindow, 4096);
    assert.equal(cache.peek(`${root}/v1`, 'm')?.contextWindow, 4096);
    now = 40_000;
    assert.equal((await cache.get(`${root}/v1`, 'm'))?.contextWindow, 32768);
    const unknown = 'http://elsewhere';
    assert.equal(await cache.get(unknown, 'm'), undefined);
    const before = asked;
    now = 1_000_000;
    assert.equal(await cache.get(unknown, 'm'), undefined);
    assert.equal(asked, before);
  });
});
