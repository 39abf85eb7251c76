import { strict as assert } from 'node:assert';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import { addSpend, emptySpend } from '../../src/context/cost';
import { pricesFor } from '../../src/context/models';
import { parseSpend } from '../../src/store/session-spend';
import { cleanup, open, tempRoot } from '../fixtures/store/helpers';

const FIXTURE = join(__dirname, '../fixtures/store/v0.1.0');
const MAIN = 'ses_aac7d27f4026050b';
const spent = addSpend(emptySpend(), { input: 1_000, output: 200, cacheRead: 30_000, cacheWrite: 2_000 }, pricesFor('claude-haiku-4-5'));

/** A session's spend lives in the sessions index (index v4), so the list never opens a session database. */
describe('store: what a session spent', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('a 0.1.0 index without the field loads (nothing recorded), then keeps a spend across reopening', async () => {
    cpSync(FIXTURE, root, { recursive: true });
    const store = await open(root);
    assert.deepEqual(store.problems, []);
    assert.ok(store.sessions.list().length > 0);
    for (const s of store.sessions.list()) assert.equal(s.spend, undefined, `${s.title}: no spend recorded before v4`);
    await store.sessions.setSpend(MAIN, spent);
    assert.deepEqual(store.sessions.get(MAIN).spend, spent);
    await store.close();
    const again = await open(root);
    assert.deepEqual(again.problems, []);
    assert.deepEqual(again.sessions.list().find((s) => s.id === MAIN)?.spend, spent);
    const replaced = addSpend(spent, { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 }, undefined);
    await again.sessions.setSpend(MAIN, replaced);
    assert.equal(again.sessions.get(MAIN).spend?.unpriced, 1, 'the newest record replaces the last');
    await again.close();
  });

  it('a spend that is not finite and non-negative is refused before anything is written', async () => {
    const store = await open(root);
    const { id } = await store.sessions.create('t');
    const bad = { ...spent, dollars: { ...spent.dollars, input: Number.NaN } };
    await assert.rejects(store.sessions.setSpend(id, bad), (e: unknown) => e instanceof HeadroomError && e.kind === 'invalid_request');
    await assert.rejects(store.sessions.setSpend(id, { ...spent, requests: -1 }), HeadroomError);
    assert.equal(store.sessions.get(id).spend, undefined);
    await store.close();
  });

  it('a damaged or foreign spend value in the index reads as nothing recorded, not as an error', () => {
    assert.deepEqual(parseSpend(JSON.stringify(spent)), spent);
    for (const raw of [null, '', 'not json', '{"tokens":1}', JSON.stringify({ ...spent, saved: 'lots' }), 42, '[]'])
      assert.equal(parseSpend(raw), undefined, String(raw));
  });
});
