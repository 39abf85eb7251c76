import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkpointRoot } from '../../src/app/checkpoint-files';
import { CHECKPOINT_LIMITS, parseCheckpoint, type Checkpoint } from '../../src/app/checkpoint-record';
import { lineChanges } from '../../src/common/line-changes';
import { CheckpointStore } from '../../src/app/checkpoint-store';
import { checkpointingWorkspace, planRestore, restoreFiles, TurnCheckpoint } from '../../src/app/checkpoints';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { removeDir, tempWorkspace } from '../fixtures/tools/tool-context';

/** A session-state table in memory (what `CheckpointStore` needs of the session store). */
function memoryState() {
  const values = new Map<string, string>();
  return {
    values,
    getState: (_id: string, key: string) => Promise.resolve(values.get(key)),
    setState: (_id: string, key: string, value: string) => {
      values.set(key, value);
      return Promise.resolve();
    },
  };
}

describe('checkpoints: capture and restore of a turn’s files', () => {
  let root: string;
  let outside: string;
  beforeEach(async () => {
    root = await tempWorkspace({ 'a.txt': 'one\ntwo\nthree\n', 'src/b.ts': 'export const b = 1;\n' });
    outside = await fs.mkdtemp(path.join(os.tmpdir(), 'headroom-outside-'));
  });
  afterEach(async () => {
    await removeDir(root);
    await removeDir(outside);
  });

  /** One turn's checkpointed workspace, its store and the record it saves. */
  function turn(n = 3) {
    const state = memoryState();
    const store = new CheckpointStore(state, 's1');
    const errors: string[] = [];
    const cp = new TurnCheckpoint(
      checkpointRoot(root),
      () => Promise.resolve(n),
      (r) => store.save(r),
      (m) => errors.push(m),
    );
    return { state, store, cp, errors, ws: checkpointingWorkspace(createNodeWorkspace(root), cp) };
  }

  it('keeps the content before the first write of each file (modified and created), with line counts, and restores it', async () => {
    const { ws, store, cp, errors } = turn();
    await ws.applyEdit('a.txt', 'one\nTWO\nthree\nfour\n');
    await ws.writeFile('a.txt', 'replaced twice\n'); // a second write keeps the first "before"
    await ws.writeFile('new/c.md', '# new\nline\n');
    assert.deepEqual(errors, []);
    const saved = await store.load(3);
    assert.ok(saved, 'the record was stored under its turn');
    assert.deepEqual(await store.turns(), [3]);
    assert.deepEqual(
      saved.files.map((f) => [f.path, f.before.state, f.added, f.removed]),
      [
        ['a.txt', 'content', 1, 3],
        ['new/c.md', 'absent', 2, 0],
      ],
    );
    assert.equal(cp.current?.files.length, 2);
    const at = checkpointRoot(root);
    const plan = await planRestore(at, saved);
    assert.deepEqual({ conflicts: plan.conflicts, notRestorable: plan.notRestorable }, { conflicts: [], notRestorable: [] });
    assert.deepEqual(await restoreFiles(at, saved, new Set()), ['a.txt', 'new/c.md']);
    assert.equal(await fs.readFile(path.join(root, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n');
    await assert.rejects(fs.stat(path.join(root, 'new/c.md')), 'the file the turn created is gone');
  });

  it('restores a binary file byte for byte', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 0x0d, 0x0a, 0xc3, 0x28]);
    await fs.writeFile(path.join(root, 'blob.bin'), bytes);
    const { ws, store } = turn();
    await ws.writeFile('blob.bin', 'text now');
    const saved = (await store.load(3))!;
    await restoreFiles(checkpointRoot(root), saved, new Set());
    assert.deepEqual(await fs.readFile(path.join(root, 'blob.bin')), bytes);
  });

  it('notes a file over the size limit as not restorable (never silently skipped), and leaves it alone', async () => {
    await fs.writeFile(path.join(root, 'big.log'), 'x'.repeat(CHECKPOINT_LIMITS.fileBytes + 1));
    const { ws, store } = turn();
    await ws.writeFile('big.log', 'small now\n');
    const saved = (await store.load(3))!;
    assert.equal(saved.files[0].before.state, 'not_kept');
    const plan = await planRestore(checkpointRoot(root), saved);
    assert.deepEqual(plan.conflicts, []);
    assert.equal(plan.notRestorable[0]?.path, 'big.log');
    assert.match(plan.notRestorable[0].reason, /larger than 1 MB/);
    assert.deepEqual(await restoreFiles(checkpointRoot(root), saved, new Set()), []);
    assert.equal(await fs.readFile(path.join(root, 'big.log'), 'utf8'), 'small now\n');
  });

  it("keeps at most the turn's byte budget: files past it are noted, not kept", async () => {
    // Each file fits the per-file limit; two of them fill most of the turn's budget.
    const each = Math.floor(CHECKPOINT_LIMITS.turnBytes * 0.4);
    assert.ok(each <= CHECKPOINT_LIMITS.fileBytes);
    for (const name of ['p.txt', 'q.txt', 'r.txt']) await fs.writeFile(path.join(root, name), 'y'.repeat(each));
    const { ws, store } = turn();
    for (const name of ['p.txt', 'q.txt', 'r.txt']) await ws.writeFile(name, 'changed');
    const files = (await store.load(3))!.files;
    assert.deepEqual(
      files.map((f) => f.before.state),
      ['content', 'content', 'not_kept'],
    );
    const last = files[2].before;
    assert.match(last.state === 'not_kept' ? last.reason : '', /budget/);
  });

  it('finds files changed by the person after the turn (conflicts), also a created file that was deleted', async () => {
    const { ws, store } = turn();
    await ws.applyEdit('a.txt', 'turn wrote this\n');
    await ws.writeFile('src/b.ts', 'export const b = 2;\n');
    await ws.writeFile('made.txt', 'made\n');
    await fs.writeFile(path.join(root, 'a.txt'), 'the person edited it\n');
    await fs.unlink(path.join(root, 'made.txt'));
    const saved = (await store.load(3))!;
    const plan = await planRestore(checkpointRoot(root), saved);
    assert.deepEqual(plan.conflicts.sort(), ['a.txt', 'made.txt']);
    // "Keep my changes": only the untouched file is restored.
    assert.deepEqual(await restoreFiles(checkpointRoot(root), saved, new Set(plan.conflicts)), ['src/b.ts']);
    assert.equal(await fs.readFile(path.join(root, 'a.txt'), 'utf8'), 'the person edited it\n');
    assert.equal(await fs.readFile(path.join(root, 'src/b.ts'), 'utf8'), 'export const b = 1;\n');
  });

  it('refuses a tampered record naming a path outside the workspace, before changing anything', async () => {
    await fs.writeFile(path.join(outside, 'victim.txt'), 'keep me');
    await fs.symlink(outside, path.join(root, 'link'));
    const content = (text: string) => ({
      state: 'content' as const,
      base64: Buffer.from(text).toString('base64'),
      sha256: '0'.repeat(64),
      size: text.length,
    });
    for (const bad of ['../escape.txt', path.join(outside, 'victim.txt'), 'link/victim.txt', 'a\0.txt']) {
      const cp: Checkpoint = {
        version: 1,
        turn: 1,
        createdAt: 0,
        files: [
          { path: 'a.txt', before: content('a was restored') },
          { path: bad, before: content('pwned') },
        ],
      };
      await assert.rejects(planRestore(checkpointRoot(root), cp), /will not write|outside|NUL/, bad);
      await assert.rejects(restoreFiles(checkpointRoot(root), cp, new Set()), Error, bad);
    }
    assert.equal(await fs.readFile(path.join(outside, 'victim.txt'), 'utf8'), 'keep me');
    assert.equal(await fs.readFile(path.join(root, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n', 'not even the good path was written');
    assert.deepEqual(await fs.readdir(path.dirname(root)).then((d) => d.includes('escape.txt')), false);
  });

  it('a stored record is validated: garbage, wrong shapes and bad hashes are no checkpoint', () => {
    const ok: Checkpoint = { version: 1, turn: 2, createdAt: 1, files: [{ path: 'a', before: { state: 'absent' } }] };
    assert.deepEqual(parseCheckpoint(JSON.stringify(ok)), ok);
    for (const raw of [
      '{',
      '{}',
      JSON.stringify({ ...ok, version: 2 }),
      JSON.stringify({ ...ok, files: [{ path: '', before: { state: 'absent' } }] }),
      JSON.stringify({ ...ok, files: [{ path: 'a', before: { state: 'content', base64: '', sha256: 'x', size: 0 } }] }),
      JSON.stringify({ ...ok, files: [{ path: 'a', before: { state: 'deleted' } }] }),
    ])
      assert.equal(parseCheckpoint(raw), undefined, raw);
  });

  it('keeps the newest checkpoints only', async () => {
    const state = memoryState();
    const store = new CheckpointStore(state, 's1');
    for (let t = 1; t <= CHECKPOINT_LIMITS.kept + 2; t++) await store.save({ version: 1, turn: t, createdAt: t, files: [] });
    const turns = await store.turns();
    assert.equal(turns.length, CHECKPOINT_LIMITS.kept);
    assert.equal(turns[0], 3);
    assert.equal(await store.load(1), undefined);
    assert.ok(await store.load(3));
  });

  it('counts lines added and removed', () => {
    assert.deepEqual(lineChanges('', 'a\nb\n'), { added: 2, removed: 0 });
    assert.deepEqual(lineChanges('a\nb\nc\n', 'a\nc\n'), { added: 0, removed: 1 });
    assert.deepEqual(lineChanges('a\nb\nc\nd\n', 'a\nx\nc\ny\nd\n'), { added: 2, removed: 1 });
    assert.deepEqual(lineChanges('a\nb\n', 'a\nb'), { added: 0, removed: 0 }, 'a missing final newline is no change');
  });

  it('counts a large file exactly: its first and last lines changed, the 2,100 between kept', () => {
    const middle = Array.from({ length: 2_100 }, (_, i) => `line ${i}`).join('\n');
    assert.deepEqual(lineChanges(`first\n${middle}\nlast\n`, `FIRST\n${middle}\nLAST\n`), { added: 2, removed: 2 });
  });
});
