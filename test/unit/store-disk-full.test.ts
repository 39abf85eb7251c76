import { strict as assert } from 'node:assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import type { StoreProblem } from '../../src/store';
import { FaultyFs, type Fault } from '../fixtures/store/faulty-fs';
import { cleanup, open, tempRoot, texts, turnMessages } from '../fixtures/store/helpers';

const isJournal = (p: string) => p.endsWith('.journal');

function diskFull(err: unknown): boolean {
  return err instanceof HeadroomError && err.kind === 'storage' && /disk is full/.test(err.message);
}

describe('store on a full disk', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  for (const fault of ['short_write', 'enospc_write', 'enospc_sync'] as Fault[]) {
    it(`reports a turn cut by ${fault} as not saved, leaves no trace of it, and keeps going`, async () => {
      const fs = new FaultyFs();
      const store = await open(root, { fs, exportDelayMs: 60_000, exportMaxWaitMs: 60_000 });
      const s = await store.sessions.create('full');
      await store.sessions.appendTurn(s.id, turnMessages(0));
      const journal = join(root, 'sessions', `${s.id}.sqlite.journal`);
      const before = statSync(journal).size;
      let armed = true;
      fs.decide = (op, path) => {
        if (!armed || !path.endsWith(`${s.id}.sqlite.journal`) || (fault === 'enospc_sync' ? op !== 'sync' : op !== 'write'))
          return undefined;
        armed = false;
        return fault;
      };
      await assert.rejects(store.sessions.appendTurn(s.id, turnMessages(1)), diskFull);
      assert.equal(statSync(journal).size, before, 'the torn or unacknowledged line was cut off');
      await store.sessions.appendTurn(s.id, turnMessages(2));
      // The failed turn is not in memory, so an export does not bring it back either.
      await store.flush();
      const expected = texts([0, 2].flatMap(turnMessages));
      assert.deepEqual(texts((await store.sessions.transcript(s.id)).map((m) => m.message)), expected);
      await store.close();
      const again = await open(root);
      assert.deepEqual(texts((await again.sessions.transcript(s.id)).map((m) => m.message)), expected);
      assert.deepEqual(again.problems, []);
      await again.close();
    });
  }

  it('says so when an export hits a full disk, keeps the old image and the journal, and saves once space is back', async () => {
    const fs = new FaultyFs();
    const store = await open(root, { fs, exportDelayMs: 60_000, exportMaxWaitMs: 60_000 });
    const seen: StoreProblem[] = [];
    store.onDidReportProblem((p) => seen.push(p));
    const s = await store.sessions.create('full');
    await store.sessions.appendTurn(s.id, turnMessages(0));
    await store.flush();
    const image = join(root, 'sessions', `${s.id}.sqlite`);
    const oldImage = readFileSync(image);
    await store.sessions.appendTurn(s.id, turnMessages(1));
    fs.decide = (op, path) => (op === 'write' && !isJournal(path) ? 'enospc_write' : undefined);
    await assert.rejects(store.flush(), diskFull);
    assert.deepEqual(readFileSync(image), oldImage, 'the image on disk is untouched');
    fs.decide = () => undefined;
    await store.sessions.appendTurn(s.id, turnMessages(2));
    await store.close();
    const again = await open(root);
    assert.equal((await again.sessions.transcript(s.id)).length, 6);
    await again.close();
    // A background export failure is reported with a kind the host can show.
    const bg = await open(root, { fs, exportDelayMs: 1, exportMaxWaitMs: 1 });
    bg.onDidReportProblem((p) => seen.push(p));
    fs.decide = (op, path) => (op === 'write' && !isJournal(path) ? 'enospc_write' : undefined);
    const done = new Promise<void>((resolve) => bg.onDidReportProblem((p) => p.kind === 'disk_full' && resolve()));
    await bg.sessions.appendTurn(s.id, turnMessages(3));
    await done;
    assert.match(seen.find((p) => p.kind === 'disk_full')!.message, /disk is full/);
    fs.decide = () => undefined;
    await bg.close();
  });

  it('reports a session that cannot be opened on a full disk as a storage error, and opens it once space is back', async () => {
    const fs = new FaultyFs();
    const store = await open(root, { fs });
    const s = await store.sessions.create('later');
    fs.decide = (op, path) => (op === 'open' && path.includes(s.id) ? 'enospc_open' : undefined);
    await assert.rejects(store.sessions.appendTurn(s.id, turnMessages(0)), diskFull);
    fs.decide = () => undefined;
    await store.sessions.appendTurn(s.id, turnMessages(1));
    assert.deepEqual(texts((await store.sessions.transcript(s.id)).map((m) => m.message)), texts(turnMessages(1)));
    await store.close();
  });

  it('opens a folder it cannot write read-only and says why', async () => {
    const seeded = await open(root);
    const s = await seeded.sessions.create('kept');
    await seeded.sessions.appendTurn(s.id, turnMessages(0));
    await seeded.close();
    const fs = new FaultyFs();
    fs.decide = (op) => (op === 'open' ? 'erofs_open' : undefined);
    const store = await open(root, { fs });
    assert.equal(store.readOnly, true);
    assert.match(store.readOnlyReason ?? '', /cannot be written \(EROFS\)/);
    assert.ok(
      store.problems.some((p) => p.kind === 'not_writable'),
      JSON.stringify(store.problems),
    );
    assert.equal((await store.sessions.transcript(s.id)).length, 2, 'what was saved is still there to read');
    await assert.rejects(store.sessions.appendTurn(s.id, turnMessages(1)), /read-only/);
    await store.close();
  });

  it('loses no write it reported durable across many random injected failures', async () => {
    const fs = new FaultyFs();
    let rate = 0;
    const faults: Fault[] = ['short_write', 'enospc_write', 'enospc_sync', 'enospc_open'];
    fs.decide = () => (Math.random() < rate ? faults[Math.floor(Math.random() * faults.length)] : undefined);
    const store = await open(root, { fs, exportDelayMs: 1, exportMaxWaitMs: 5 });
    store.onDidReportProblem(() => {}); // failed exports are expected here
    const s = await store.sessions.create('random');
    rate = 0.25;
    const acked: number[] = [];
    const failed: number[] = [];
    for (let i = 0; i < 300; i++) {
      try {
        await store.sessions.appendTurn(s.id, turnMessages(i));
        acked.push(i);
      } catch (err) {
        assert.ok(err instanceof HeadroomError && err.kind === 'storage', String(err));
        failed.push(i);
      }
    }
    rate = 0;
    await store.close();
    const again = await open(root);
    const stored = new Set(texts((await again.sessions.transcript(s.id)).map((m) => m.message)));
    const lost = acked.filter((i) => !stored.has(`question ${i}`));
    const resurrected = failed.filter((i) => stored.has(`question ${i}`));
    await again.close();
    assert.ok(
      fs.injected > 50 && failed.length > 20 && acked.length > 100,
      `too few faults to mean anything: ${fs.injected} injected, ${failed.length} failed`,
    );
    if (process.env.HEADROOM_STORE_FIGURES)
      console.log(
        `disk-full: ${fs.injected} faults injected, ${acked.length} writes reported durable, ${lost.length} lost; ${failed.length} reported failed, ${resurrected.length} came back`,
      );
    assert.deepEqual(lost, [], `${lost.length} of ${acked.length} writes reported durable were lost`);
    assert.deepEqual(resurrected, [], `${resurrected.length} writes reported failed came back`);
  });
});
