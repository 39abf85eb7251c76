/**
 * A server's model list is bounded and escaped. Before, a list of 2,001 entries was dropped whole,
 * 100,000 entries blocked the host for 2.5 s while validated, and names reached the quick pick as
 * they were (`$(…)` draws an icon there, a line break starts another line).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withoutIcons } from '../../src/common/single-line';
import { MAX_SERVER_MODELS, listServerModels } from '../../src/providers/server-models';

async function modelsServer(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const srv = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`, close: () => new Promise((r) => srv.close(() => r())) };
}

const list = (n: number, extra: (i: number) => object = () => ({})) =>
  JSON.stringify({ object: 'list', data: Array.from({ length: n }, (_, i) => ({ id: `model-${i}`, object: 'model', ...extra(i) })) });

describe('security: a server model list is bounded and escaped', function () {
  this.timeout(60_000);
  const fetchLike = (url: string, init?: RequestInit) => fetch(url, init);

  it('keeps the first models of a list of 2,001 instead of dropping it', async () => {
    const srv = await modelsServer(list(2_001));
    try {
      const ids = await listServerModels(srv.url, fetchLike);
      assert.equal(ids.length, MAX_SERVER_MODELS);
      assert.deepEqual(ids.slice(0, 3), ['model-0', 'model-1', 'model-2']);
    } finally {
      await srv.close();
    }
  });

  it('reads only the start of a list of 100,000 (several MB) and still lists its first models', async () => {
    const srv = await modelsServer(list(100_000, (i) => ({ permission: [{ id: `modelperm-${i}`, object: 'model_permission' }] })));
    try {
      const ids = await listServerModels(srv.url, fetchLike, 10_000);
      assert.equal(ids.length, MAX_SERVER_MODELS);
      assert.equal(ids[0], 'model-0');
      assert.ok(!ids.some((id) => id.startsWith('modelperm-')), 'nested permission ids are not models');
    } finally {
      await srv.close();
    }
  });

  it('keeps every id on one line, and the quick pick shows $(…) as text', async () => {
    const srv = await modelsServer(
      JSON.stringify({ data: [{ id: 'llama3\n$(check) gpt-5 (current)' }, { id: 'x'.repeat(301) }, { id: 7 }, { id: 'ok' }] }),
    );
    try {
      const ids = await listServerModels(srv.url, fetchLike);
      assert.deepEqual(ids, ['llama3\\n$(check) gpt-5 (current)', 'ok']);
      assert.equal(withoutIcons(ids[0]), 'llama3\\n\\$(check) gpt-5 (current)');
      assert.equal(withoutIcons('a\u2028$(alert)'), 'a\\u2028\\$(alert)');
    } finally {
      await srv.close();
    }
  });
});
