import assert from 'node:assert/strict';
import { OllamaChatProvider } from '../../src/providers/ollama-chat';
import { OpenAIProvider } from '../../src/providers/openai';
import { discoverServerWindow, LMSTUDIO_UNLOADED_CONTEXT, OLLAMA_OLD_DEFAULT_CONTEXT } from '../../src/providers/server-discovery';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';

const MODEL = 'mistral-7b-instruct';

/** Each local server asked the way its docs say, as it really behaves (loading, versions, other clients). */
describe('provider: local servers asked for their window the right way', () => {
  let server: FakeProvider;
  const start = async (o: FakeProviderOptions) => (server = await startFakeProvider(o));
  afterEach(async () => server?.close());
  const openai = () => new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } });

  it('LM Studio with JIT loading: an unloaded model is budgeted small (not its maximum) until its first request loads it', async () => {
    await start({ flavour: 'lmstudio', windows: { [MODEL]: 8192 }, local: { unloaded: true, v0DocumentedFieldsOnly: true } });
    const before = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.deepEqual(
      [before?.kind, before?.contextWindow, before?.loaded, before?.truncates],
      ['lmstudio', LMSTUDIO_UNLOADED_CONTEXT, false, true],
    );
    assert.ok(before!.contextWindow < before!.modelMax!, 'not the model maximum');
    await run(openai(), request([user('hello')], { model: MODEL }));
    const after = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.deepEqual([after?.contextWindow, after?.loaded], [8192, true], '/api/v1/models tells the loaded instance');
  });

  it('LM Studio before 0.4 (only /api/v0, documented fields): a loaded model whose context is not told stays small', async () => {
    await start({ flavour: 'lmstudio', windows: { [MODEL]: 8192 }, local: { noV1Api: true, v0DocumentedFieldsOnly: true } });
    const found = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.deepEqual([found?.contextWindow, found?.loaded], [LMSTUDIO_UNLOADED_CONTEXT, false]);
    assert.match(found!.warnings.join(), /does not say the context it loaded/);
  });

  it('Ollama ≤ 0.5 (no context in /api/ps) gets its 2,048 default, and Headroom asks for exactly that', async () => {
    await start({ flavour: 'ollama', windows: { [MODEL]: 2048 }, local: { ollamaVersion: '0.5.7' } });
    const found = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.deepEqual([found?.contextWindow, found?.ollama?.numCtxKnown, found?.truncates], [OLLAMA_OLD_DEFAULT_CONTEXT, true, true]);
  });

  it('Ollama with the model loaded at 32,768 by another client: the native API keeps it there, /v1 would reload it at the default', async () => {
    await start({ flavour: 'ollama', windows: { [MODEL]: 4096 }, local: { loadedByOtherClient: { [MODEL]: 32_768 } } });
    const found = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.deepEqual([found?.contextWindow, found?.ollama?.numCtxKnown, found?.truncates], [32_768, true, false]);
    const native = new OllamaChatProvider({ baseUrl: server.openaiBaseUrl, numCtx: found!.contextWindow, retry: { maxRetries: 0 } });
    const { message } = await run(native, request([user('hello')], { model: MODEL }));
    assert.equal(message.stopReason, 'end', message.error?.message);
    const rec = server.requests.at(-1)!;
    assert.deepEqual([rec.protocol, rec.numCtx, rec.body.truncate, rec.contextLength], ['ollama', 32_768, false, 32_768]);
    assert.equal(server.local!.loadedContext(MODEL), 32_768, 'server and budget agree: no reload');
    await run(openai(), request([user('hello')], { model: MODEL }));
    assert.equal(server.local!.loadedContext(MODEL), 4096, 'an OpenAI-API request cannot say num_ctx: Ollama reloaded with its default');
  });

  it('Ollama with the model not loaded: the first request runs with the server default, read back afterwards', async () => {
    await start({ flavour: 'ollama', windows: { [MODEL]: 16_384 }, local: { unloaded: true, ollamaVersion: '0.15.6' } });
    const before = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.deepEqual([before?.contextWindow, before?.loaded, before?.ollama?.numCtxKnown], [4096, false, false]);
    const native = new OllamaChatProvider({ baseUrl: server.openaiBaseUrl, numCtx: undefined, retry: { maxRetries: 0 } });
    await run(native, request([user('hello')], { model: MODEL }));
    assert.equal(server.requests.at(-1)!.numCtx, undefined, 'no num_ctx: Ollama picks its own (OLLAMA_CONTEXT_LENGTH or by VRAM)');
    const after = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.deepEqual([after?.contextWindow, after?.loaded], [16_384, true]);
  });

  it('Ollama 0.30.0 is known to count without its cached prefix', async () => {
    await start({ flavour: 'ollama', windows: { [MODEL]: 8192 }, local: { ollamaVersion: '0.30.0' } });
    const found = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.equal(found?.ollama?.uncachedUsage, true);
    assert.match(found.warnings.join(), /only the prompt tokens it did not have cached/);
    const fixed = await discoverServerWindow(server.openaiBaseUrl.replace(/\/v1$/, ''), MODEL, (url, init) =>
      url.endsWith('/api/version') ? Promise.resolve({ ok: true, json: () => Promise.resolve({ version: '0.30.1' }) }) : fetch(url, init),
    );
    assert.equal(fixed?.ollama?.uncachedUsage, false);
  });

  it('llama.cpp with 4 slots: the window is one slot’s share of -c', async () => {
    await start({ flavour: 'llamacpp', windows: { [MODEL]: 32_768 }, local: { slots: 4 } });
    const found = await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch);
    assert.deepEqual([found?.kind, found?.contextWindow, found?.truncates], ['llamacpp', 8192, false]);
  });
});
