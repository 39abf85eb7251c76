import assert from 'node:assert/strict';
import { maskApiKey, resolveApiKey, secretKeyFor, storeApiKey, type SecretStore } from '../../src/providers/credentials';
import { createProvider } from '../../src/providers/create-provider';
import { defaultModelFor, findModel, modelsFor } from '../../src/context/models';

function memoryStore(initial: Record<string, string> = {}): SecretStore & { data: Map<string, string> } {
  const data = new Map(Object.entries(initial));
  return {
    data,
    get: (k) => Promise.resolve(data.get(k)),
    store: (k, v) => Promise.resolve(void data.set(k, v)),
    delete: (k) => Promise.resolve(void data.delete(k)),
  };
}

describe('provider: API keys from SecretStorage with an environment fallback', () => {
  it("prefers SecretStorage, then the provider's environment variable", async () => {
    const env = { ANTHROPIC_API_KEY: 'env-anthropic', OPENAI_API_KEY: 'env-openai' };
    const store = memoryStore({ [secretKeyFor('anthropic')]: 'stored-anthropic' });
    assert.deepEqual(await resolveApiKey('anthropic', store, env), {
      apiKey: 'stored-anthropic',
      source: 'secretStorage',
      boundOrigin: 'https://api.anthropic.com',
    });
    assert.deepEqual(await resolveApiKey('openai', store, env), {
      apiKey: 'env-openai',
      source: 'env',
      boundOrigin: 'https://api.openai.com',
    });
    assert.equal(await resolveApiKey('openai-compatible', store, env), undefined, 'no environment fallback for custom servers');
    assert.equal(await resolveApiKey('openai', memoryStore(), {}), undefined);
  });

  it('a failing store counts as empty instead of throwing', async () => {
    const broken: SecretStore = { get: () => Promise.reject(new Error('keychain locked')), store: async () => {}, delete: async () => {} };
    assert.deepEqual(await resolveApiKey('anthropic', broken, { ANTHROPIC_API_KEY: 'k' }), {
      apiKey: 'k',
      source: 'env',
      boundOrigin: 'https://api.anthropic.com',
    });
  });

  it('stores per provider, trims, and deletes on an empty value', async () => {
    const store = memoryStore();
    await storeApiKey('openai', store, '  sk-abc  ');
    assert.deepEqual(JSON.parse(store.data.get('headroom.apiKey.openai')!), { v: 1, key: 'sk-abc', origin: 'https://api.openai.com' });
    assert.equal((await resolveApiKey('openai', store, {}))?.apiKey, 'sk-abc');
    await storeApiKey('openai', store, '');
    assert.equal(store.data.has('headroom.apiKey.openai'), false);
  });

  it('masks keys for display', () => {
    assert.equal(maskApiKey('sk-ant-api03-abcdefghijkl'), 'sk-a…ijkl');
    assert.equal(maskApiKey('short'), '••••');
  });

  it("the factory builds the adapter for each provider id; the one model table (src/context) lists each provider's models", () => {
    assert.equal(createProvider({ provider: 'anthropic', apiKey: 'k' }).id, 'anthropic');
    assert.equal(createProvider({ provider: 'openai', apiKey: 'k' }).id, 'openai');
    assert.equal(createProvider({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1' }).id, 'openai-compatible');
    assert.ok(modelsFor('anthropic').length > 0 && modelsFor('anthropic').every((m) => m.provider === 'anthropic'));
    assert.equal(findModel('claude-sonnet-4-5-20250929')?.contextWindow, 200_000);
    assert.equal(defaultModelFor('openai-compatible'), undefined);
  });
});

describe('provider: createProvider', () => {
  it('streams through the lazily loaded adapter', async () => {
    const { startFakeProvider } = await import('../fixtures/fake-provider');
    const { request, run, user } = await import('../fixtures/fake-provider/factories');
    const server = await startFakeProvider();
    try {
      const anthropic = createProvider({ provider: 'anthropic', apiKey: 'k', baseUrl: server.baseUrl });
      const compat = createProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl });
      assert.deepEqual((await run(anthropic, request([user('one')]))).message.content, [{ type: 'text', text: 'echo: one' }]);
      assert.deepEqual((await run(compat, request([user('two')]))).message.content, [{ type: 'text', text: 'echo: two' }]);
      assert.equal(server.requests.at(-1)!.headers.authorization, 'Bearer no-key');
    } finally {
      await server.close();
    }
  });
});
