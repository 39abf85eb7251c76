import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HeadroomStore } from '../../src/store';
import { CountingFs } from '../fixtures/store/counting-fs';
import { cleanup, open, tempRoot, toolResult, user } from '../fixtures/store/helpers';

describe('store results', () => {
  let root: string;
  let store: HeadroomStore;
  beforeEach(() => (root = tempRoot()));
  afterEach(async () => {
    await store.close();
    cleanup(root);
  });

  it('stores a result and pages it by bytes, and by grep with line numbers', async () => {
    store = await open(root);
    const s = await store.sessions.create();
    const text = Array.from({ length: 1000 }, (_, i) => (i % 100 === 0 ? `ERROR at ${i + 1}` : `ok ${i + 1}`)).join('\n') + '\n';
    const meta = await store.results.put(s.id, 'run_command', text);
    assert.match(meta.refId, /^res_[0-9a-f]{16}$/);
    assert.deepEqual([meta.byteSize, meta.lineCount, meta.toolName, meta.sessionId], [Buffer.byteLength(text), 1000, 'run_command', s.id]);
    assert.deepEqual(store.results.getMeta(meta.refId), meta);
    const at = text.indexOf('ok 11\n');
    let page = await store.results.page(meta.refId, { offset: at, limit: 12 });
    assert.deepEqual([page.text, page.offset, page.nextOffset, page.totalBytes], ['ok 11\nok 12\n', at, at + 12, meta.byteSize]);
    assert.equal(page.toolName, 'run_command');
    page = await store.results.page(meta.refId, { offset: meta.byteSize - 4, limit: 100 });
    assert.deepEqual([page.text, page.nextOffset], ['000\n', undefined]);
    page = await store.results.page(meta.refId, { grep: '^error', offset: 8 });
    assert.deepEqual([page.text, page.totalMatches, page.nextOffset], ['801: ERROR at 801\n901: ERROR at 901', 10, undefined]);
    const code = await store.results.put(s.id, 'read_file', 'f(x)\ng(y)\n');
    page = await store.results.page(code.refId, { grep: 'g(' });
    assert.equal(page.text, '2: g(y)', 'text that is not a valid pattern is matched literally');
    assert.equal(await store.results.read(meta.refId), text);
    const second = await store.results.put(s.id, 'read_file', 'x');
    assert.deepEqual(
      store.results.list(s.id).map((m) => m.refId),
      [meta.refId, code.refId, second.refId],
    );
  });

  it('reads only the page (and a few boundary bytes) from the result file, never splitting a character', async () => {
    const counting = new CountingFs();
    store = await open(root, { fs: counting });
    const s = await store.sessions.create();
    const text = 'é漢😀 '.repeat(50_000); // 2 + 3 + 4 + 1 bytes, 500 KB
    const meta = await store.results.put(s.id, 'run_command', text);
    counting.bytesRead = 0;
    let offset: number | undefined = 3; // inside 漢: the page starts at the next character
    const pages: string[] = [];
    for (let i = 0; i < 5 && offset !== undefined; i++) {
      const page = await store.results.page(meta.refId, { offset, limit: 1001 });
      assert.ok(!page.text.includes('\uFFFD'));
      pages.push(page.text);
      offset = page.nextOffset;
    }
    assert.ok(text.slice(2).startsWith(pages.join('')), 'pages join up from the character after byte 3');
    assert.ok(counting.bytesRead <= 5 * (1001 + 4), `read ${counting.bytesRead} bytes for 5 pages of 1001`);
    const port = store.results.port(s.id);
    assert.equal(await port.page('res_0000000000000000', { offset: 0, limit: 10 }), undefined, 'an unknown ref pages to undefined');
    const viaPort = await port.put({ toolName: 'run_command', toolCallId: 'c1', content: 'through the port' });
    assert.equal((await port.page(viaPort, { offset: 8, limit: 100 }))?.text, 'the port');
  });

  it('keeps stored results under the cap, oldest first, sparing what a live snapshot refers to', async () => {
    store = await open(root, { resultCapBytes: 10_000 });
    const s = await store.sessions.create();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await store.results.put(s.id, 'run_command', String(i).repeat(3000))).refId);
    await store.results.enforceRetention();
    assert.equal(store.results.totalBytes(), 9000);
    // The oldest one went to make room for the fourth.
    assert.deepEqual(
      store.results.list(s.id).map((m) => m.refId),
      ids.slice(1),
    );
    // The latest snapshot refers to ids[1] (the now-oldest): it must survive the next cleaning.
    await store.sessions.recordCompaction(s.id, {
      beforeTokens: 10,
      afterTokens: 5,
      beforeMessages: 2,
      afterMessages: 2,
      strategies: ['clear_tool_results'],
      snapshot: { messages: [user('q'), toolResult(`[Tool result stored] read_result ref_id="${ids[1]}"`, ids[1])] },
    });
    const fifth = (await store.results.put(s.id, 'run_command', 'z'.repeat(3000))).refId;
    const report = await store.results.enforceRetention();
    const left = store.results.list(s.id).map((m) => m.refId);
    assert.deepEqual(left, [ids[1], ids[3], fifth]);
    assert.ok(store.results.totalBytes() <= 10_000);
    assert.equal(existsSync(join(root, 'results', `${ids[2]}.txt`)), false, 'the file is gone with its row');
    assert.equal(report.overCap, false);
    await assert.rejects(store.results.page(ids[2]), /removed by the size cap/);
    assert.equal(await store.results.port(s.id).page(ids[2], { offset: 0, limit: 10 }), undefined);
  });

  it('reports over-cap when everything left is protected', async () => {
    store = await open(root, { resultCapBytes: 1000 });
    const s = await store.sessions.create();
    const a = (await store.results.put(s.id, 'run_command', 'a'.repeat(2000))).refId;
    await store.sessions.saveSnapshot(s.id, { kind: 'compaction', messages: [toolResult(`ref_id="${a}"`, a)] });
    await store.results.put(s.id, 'run_command', 'b'.repeat(2000));
    const report = await store.results.enforceRetention();
    assert.equal(report.overCap, true);
    assert.equal(store.results.list(s.id).length, 2);
  });
});
