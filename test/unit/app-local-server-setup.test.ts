import assert from 'node:assert/strict';
import { listsModel, serverModelSetup } from '../../src/providers/server-models';
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
});
