import assert from 'node:assert/strict';
import { setUpServerModel } from '../../src/commands/server-setup';
import type { PickItem, PickOptions } from '../../src/commands/palette-ui';
import { providerEntry } from '../../src/common/provider-catalogue';
import { withServerKey } from '../../src/providers/key-origin';
import { listServerModels, listsModel, serverModelSetup } from '../../src/providers/server-models';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

const SERVED = 'qwen2.5-coder:7b';

/**
 * Setting up a local server: the model comes from the server's own list, and Test connection checks
 * the configured model is on it, against a lenient server (llama.cpp's answers any model name).
 */
describe('local server setup: the model is one the server has', function () {
  this.timeout(60_000);
  let world: FakeWorld | undefined;
  afterEach(async () => world?.close());

  it('Test connection says a model the lenient server does not list is not there, and what it has', async () => {
    world = await createFakeWorld(
      {},
      { server: { flavour: 'llamacpp', windows: { [SERVED]: 32_768 } }, provider: { provider: 'openai-compatible', model: 'llama3.1' } },
    );
    const { service } = await world.open();
    const before = world.server.requests.length;
    const r = await service.turns.testConnection();
    assert.equal(r.ok, false, r.message);
    assert.equal(r.message, `llama3.1 is not on this server; it has: fake-model, ${SERVED}. Pick one with Select Model.`);
    assert.equal(world.server.requests.length, before, 'no chat request: the list already says');
  });

  it('Test connection still sends its request for a model the server lists', async () => {
    world = await createFakeWorld(
      {},
      { server: { flavour: 'llamacpp', windows: { [SERVED]: 32_768 } }, provider: { provider: 'openai-compatible', model: SERVED } },
    );
    const { service } = await world.open();
    const r = await service.turns.testConnection();
    assert.equal(r.ok, true, r.message);
    assert.equal(r.message, `Connected: ${SERVED} answered at ${world.server.openaiBaseUrl}.`);
  });

  it("Ollama's untagged name is its :latest; the setup keeps, takes, asks or does not know", () => {
    assert.equal(listsModel(['llama3.1:latest'], 'llama3.1'), true);
    assert.equal(listsModel(['llama3.1'], 'llama3.1:latest'), true);
    assert.equal(listsModel(['llama3.1:8b'], 'llama3.1'), false);
    assert.equal(listsModel(['qwen'], ''), false);
    assert.deepEqual(serverModelSetup([SERVED, 'llama3.1:latest'], 'llama3.1'), { kind: 'keep', model: 'llama3.1' });
    assert.deepEqual(serverModelSetup([SERVED], 'llama3.1'), { kind: 'use', model: SERVED });
    assert.deepEqual(serverModelSetup([SERVED, 'a'], 'llama3.1'), { kind: 'ask', models: [SERVED, 'a'] });
    assert.deepEqual(serverModelSetup([], 'llama3.1'), { kind: 'unknown' });
  });

  /** Setup against the fake server's real `/v1/models`, with a UI that records what it showed and picks `choose`. */
  async function setUp(current: string, choose: (items: readonly PickItem[]) => PickItem | undefined) {
    const picks: Array<{ items: readonly PickItem[]; options: PickOptions }> = [];
    const said: string[] = [];
    const used: string[] = [];
    const url = world!.server.openaiBaseUrl;
    const chosen = await setUpServerModel(url, current, {
      ui: {
        t: (m, ...args) => m.replace(/\{(\d)\}/g, (_, i: string) => String(args[Number(i)])),
        pick: <T extends PickItem>(items: readonly T[], options: PickOptions) => {
          picks.push({ items, options });
          return Promise.resolve(choose(items) as T | undefined);
        },
        info: (m) => void said.push(m),
      },
      list: (u) => listServerModels(u, (x, init) => fetch(x, init)),
      use: (m) => Promise.resolve(void used.push(m)),
    });
    return { chosen, picks, said, used, url };
  }

  it("setup asks which of the server's models to use, in its order, never the catalogue's default", async () => {
    world = await createFakeWorld({}, { server: { flavour: 'llamacpp', windows: { [SERVED]: 32_768, 'llama3.2:3b': 8192 } } });
    const catalogue = providerEntry('openai-compatible').defaultModel;
    const s = await setUp(catalogue, (items) => items.find((i) => i.label === SERVED));
    assert.equal(s.picks.length, 1, 'asked once');
    assert.deepEqual(
      s.picks[0].items.map((i) => i.label),
      ['fake-model', SERVED, 'llama3.2:3b'],
    );
    assert.ok(!s.picks[0].items.some((i) => i.label === catalogue), 'the catalogue default is not offered');
    assert.match(s.picks[0].options.title, new RegExp(`which model of ${s.url.replace(/[.]/g, '\\.')}`));
    assert.deepEqual([s.chosen, s.used], [SERVED, [SERVED]]);
  });

  it('setup keeps a model the server has, takes the only one it serves, and says when it cannot read the list', async () => {
    world = await createFakeWorld({}, { server: { flavour: 'vllm' } });
    const none = () => assert.fail('not asked');
    const kept = await setUp('fake-model', none);
    assert.deepEqual([kept.chosen, kept.used, kept.said], ['fake-model', [], []]);
    const taken = await setUp('llama3.1', none);
    assert.deepEqual([taken.chosen, taken.used], ['fake-model', ['fake-model']]);
    assert.match(taken.said[0], /uses fake-model, the model .* serves/);
    await world.server.close();
    const gone = await setUp('llama3.1', none);
    assert.deepEqual([gone.chosen, gone.used], [undefined, []]);
    assert.match(gone.said[0], /could not read the models of .*Start the server/);
  });
});

/**
 * vLLM started with `--api-key` refuses every `/v1` route without the key, its model list too: the
 * picker showed none of its models, Test connection could not tell a wrong name, and the window it
 * serves (`max_model_len`) stayed unknown. The key released for the server goes with those requests.
 */
describe('a keyed server: its lists are asked with the key', function () {
  this.timeout(60_000);
  let world: FakeWorld | undefined;
  afterEach(async () => world?.close());

  it('lists the models and their windows of a vLLM that requires a key, and Test connection reads the list', async () => {
    world = await createFakeWorld(
      {},
      {
        server: { flavour: 'vllm', windows: { [SERVED]: 16_384 }, apiKey: 'test-key' },
        provider: { provider: 'openai-compatible', model: 'llama3.1' },
      },
    );
    const { service } = await world.open();
    const r = await service.turns.testConnection();
    assert.equal(r.ok, false, r.message);
    assert.match(r.message, new RegExp(`llama3.1 is not on this server; it has: .*${SERVED.replace('.', '\\.')}`));
    const listed = await service.models.serverModels();
    assert.ok(listed.ids.includes(SERVED), `listed: ${listed.ids.join(', ')}`);
    assert.equal(listed.windows.get(SERVED)?.contextWindow, 16_384);
  });

  it('never sends the key to another origin', () => {
    assert.deepEqual(withServerKey('http://127.0.0.1:9/v1/models', undefined, 'k', 'http://127.0.0.1:8/v1'), undefined);
    assert.deepEqual(withServerKey('http://evil.example/v1/models', { method: 'GET' }, 'k', 'http://127.0.0.1:8/v1'), { method: 'GET' });
    assert.deepEqual(withServerKey('http://127.0.0.1:8/v1/models', undefined, 'k', 'http://127.0.0.1:8/v1'), {
      headers: { authorization: 'Bearer k' },
    });
    assert.deepEqual(withServerKey('http://127.0.0.1:8/v1/models', undefined, undefined, 'http://127.0.0.1:8/v1'), undefined);
  });
});
