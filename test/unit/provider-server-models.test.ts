import assert from 'node:assert/strict';
import { startFakeProvider, type FakeFlavour } from '../fixtures/fake-provider';
import { listServerModels } from '../../src/providers/server-models';

const fetchLike = (url: string, init?: RequestInit) => fetch(url, init);

describe('provider server models: what a local server offers the model picker', () => {
  for (const flavour of ['ollama', 'lmstudio', 'llamacpp', 'vllm'] as FakeFlavour[]) {
    it(`${flavour}: lists the models at /v1/models`, async () => {
      const server = await startFakeProvider({ flavour, windows: { 'qwen2.5-coder:7b': 8_192 } });
      try {
        const ids = await listServerModels(server.openaiBaseUrl, fetchLike);
        assert.ok(ids.includes('qwen2.5-coder:7b'), `${flavour} listed ${ids.join(', ')}`);
        assert.equal(new Set(ids).size, ids.length);
      } finally {
        await server.close();
      }
    });
  }

  it('gives an empty list, without throwing, when nothing answers', async () => {
    const server = await startFakeProvider();
    const url = server.openaiBaseUrl;
    await server.close();
    assert.deepEqual(await listServerModels(url, fetchLike, 500), []);
  });
});
