import { strict as assert } from 'node:assert';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import { LockFile, WorkspaceLock } from '../../src/store/workspace-lock';
import { FaultyFs } from '../fixtures/store/faulty-fs';
import { cleanup, open, tempRoot, texts, turnMessages } from '../fixtures/store/helpers';

const HOLDER = join(__dirname, '../fixtures/store/lock-holder.ts');

function startHolder(root: string): { child: ChildProcessWithoutNullStreams; next: (word: string) => Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, root]);
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      waiters.splice(0).forEach((w) => w());
    }
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const next = async (word: string): Promise<string> => {
    for (;;) {
      const i = lines.findIndex((l) => l.startsWith(word));
      if (i >= 0) return lines.splice(i, 1)[0].slice(word.length + 1);
      if (child.exitCode !== null) throw new Error(`holder exited: ${stderr}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { child, next };
}

/** Every file of the store folder with its bytes, to prove nothing was touched. */
function snapshotFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name !== 'store.lock') out.set(p, readFileSync(p).toString('base64'));
    }
  };
  walk(root);
  return out;
}

async function rejectsReadOnly(p: () => Promise<unknown>): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof HeadroomError && err.kind === 'storage' && /read-only/.test(err.message));
}

describe('store with two windows', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('gives the second process read-only access that cannot clobber the first', async () => {
    const holder = startHolder(root);
    try {
      const sessionId = await holder.next('ready');
      const second = await open(root);
      assert.equal(second.readOnly, true);
      assert.match(second.readOnlyReason ?? '', new RegExp(`process ${holder.child.pid}`));
      assert.ok(second.problems.some((p) => p.kind === 'read_only'));
      // It can read what the first window wrote (journal replayed in memory, nothing written).
      assert.deepEqual(
        second.sessions.list().map((s) => s.id),
        [sessionId],
      );
      assert.equal((await second.sessions.transcript(sessionId)).length, 2);
      const before = snapshotFiles(root);
      await rejectsReadOnly(() => second.sessions.appendTurn(sessionId, turnMessages(9)));
      await rejectsReadOnly(() => second.sessions.create('mine'));
      await rejectsReadOnly(() => second.sessions.rename(sessionId, 'renamed'));
      await rejectsReadOnly(() => second.sessions.delete(sessionId));
      await rejectsReadOnly(() => second.sessions.clear(sessionId));
      await rejectsReadOnly(() => second.results.put(sessionId, 'run_command', 'x'));
      await rejectsReadOnly(() => second.calibration.set('m', 1.1, 1));
      await second.flush();
      await second.close();
      assert.deepEqual(snapshotFiles(root), before, 'the read-only window changed no file');

      holder.child.stdin.write('write\n');
      await holder.next('wrote');
      holder.child.stdin.write('exit\n');
      await new Promise((r) => holder.child.once('exit', r));
      const after = await open(root);
      assert.equal(after.readOnly, false, 'the lock is free once the first window closed');
      const transcript = await after.sessions.transcript(sessionId);
      assert.deepEqual(texts(transcript.map((m) => m.message)), texts([0, 1].flatMap(turnMessages)));
      await after.close();
    } finally {
      if (holder.child.exitCode === null) holder.child.kill('SIGKILL');
    }
  });

  it('makes a second store in the same process read-only too', async () => {
    const first = await open(root);
    const second = await open(root);
    assert.equal(first.readOnly, false);
    assert.equal(second.readOnly, true);
    await second.close();
    await first.sessions.create('still writable');
    await first.close();
  });

  it('takes over a lock whose process is dead', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => child.once('exit', r));
    writeFileSync(join(root, 'store.lock'), JSON.stringify({ pid: child.pid, host: hostname(), id: 'dead', heartbeat: Date.now() }));
    const store = await open(root);
    assert.equal(store.readOnly, false);
    assert.equal(lockOnDisk(root).pid, process.pid);
    await store.close();
  });

  it('takes over a lock whose heartbeat is old, even from a live process', async () => {
    writeFileSync(
      join(root, 'store.lock'),
      JSON.stringify({ pid: process.ppid, host: hostname(), id: 'frozen', heartbeat: Date.now() - 60_000 }),
    );
    const store = await open(root, { staleMs: 30_000 });
    assert.equal(store.readOnly, false);
    await store.close();
  });

  it('respects a fresh lock from a live process on another host', async () => {
    writeFileSync(join(root, 'store.lock'), JSON.stringify({ pid: 1, host: 'other-machine', id: 'remote', heartbeat: Date.now() }));
    const store = await open(root);
    assert.equal(store.readOnly, true);
    await store.close();
    assert.equal(lockOnDisk(root).id, 'remote', 'a read-only window leaves the lock alone');
  });

  it('stops writing when another window took the lock over (this one was frozen)', async () => {
    // The default heartbeat (10 s) never runs during the test: like a frozen window, this one has no
    // idea yet that it lost the lock. It must find out before it acknowledges a write, not later.
    const store = await open(root);
    const s = await store.sessions.create('mine');
    await store.sessions.appendTurn(s.id, turnMessages(0));
    await store.flush();
    const thief = await WorkspaceLock.acquire(join(root, 'store.lock'), { staleMs: 0 });
    assert.equal(thief.owned, true, 'the other window judged the silent lock stale and took it');
    await assert.rejects(store.sessions.appendTurn(s.id, turnMessages(1)), /took over/);
    await rejectsReadOnly(() => store.sessions.appendTurn(s.id, turnMessages(2)));
    await store.close();
    assert.equal(await thief.verify(), true, 'the new owner keeps its lock');
    await thief.release();
    const after = await open(root);
    assert.deepEqual(texts((await after.sessions.transcript(s.id)).map((m) => m.message)), texts(turnMessages(0)));
    await after.close();
  });

  it('does not report a write durable when the lock is taken over while it is being written', async () => {
    const fs = new FaultyFs();
    const store = await open(root, { fs });
    const s = await store.sessions.create('mine');
    let thief: WorkspaceLock | undefined;
    fs.onSync = async (path) => {
      if (!thief && path.endsWith(`${s.id}.sqlite.journal`)) thief = await WorkspaceLock.acquire(join(root, 'store.lock'), { staleMs: 0 });
    };
    await assert.rejects(store.sessions.appendTurn(s.id, turnMessages(0)), /took over/);
    assert.ok(thief?.owned, 'the lock was taken over during the write');
    await store.close();
    await thief.release();
  });

  it('treats an unreadable lock file as stale', async () => {
    writeFileSync(join(root, 'store.lock'), 'garbage');
    const store = await open(root);
    assert.equal(store.readOnly, false);
    await store.close();
  });
});

/** The lock file as the lock itself reads it. */
function lockOnDisk(root: string): LockFile {
  return LockFile.parse(JSON.parse(readFileSync(join(root, 'store.lock'), 'utf8')));
}
