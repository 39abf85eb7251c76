/**
 * Special files (FIFOs, devices) in the workspace are refused before they are opened: opening a FIFO
 * with no writer blocks a libuv thread, and after four of them every asynchronous file read in the
 * extension host hangs.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import { editFileTool } from '../../src/tools/builtin/edit-file';
import { readFileTool } from '../../src/tools/builtin/read-file';
import { writeFileTool } from '../../src/tools/builtin/write-file';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { readRegularFile } from '../../src/tools/safe-file';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

describe('security: special files are never opened', function () {
  this.timeout(30_000);
  let root: string;

  before(function () {
    if (process.platform === 'win32') this.skip();
  });
  beforeEach(async () => {
    root = await tempWorkspace({ 'ok.txt': 'still readable\n' });
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
  });
  afterEach(async () => {
    if (root) await removeDir(root);
  });

  it('read_file refuses a FIFO, five times over, and async file reads still complete afterwards', async () => {
    const ctx = makeContext(root);
    for (let i = 0; i < 5; i++) {
      const r = await readFileTool.invoke(call('read_file', { path: 'pipe' }), ctx);
      assert.equal(r.isError, true);
      assert.match(resultText(r), /not a regular file.*not opened/);
    }
    // With a blocked thread pool (4 threads by default), this read would never finish.
    assert.equal(await fs.readFile(path.join(root, 'ok.txt'), 'utf8'), 'still readable\n');
    const ok = await readFileTool.invoke(call('read_file', { path: 'ok.txt' }), ctx);
    assert.match(resultText(ok), /still readable/);
  });

  it('the workspace port refuses a FIFO and a link to one before opening', async () => {
    await fs.symlink(path.join(root, 'pipe'), path.join(root, 'pipe-link'));
    const ws = createNodeWorkspace(root);
    for (const p of ['pipe', 'pipe-link']) {
      const err = await ws.readFile(p).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof HeadroomError, p);
      assert.match(err.message, /named pipe \(FIFO\), not a regular file/);
    }
    assert.deepEqual(await ws.stat('pipe'), { type: 'other', size: 0, mtimeMs: (await fs.stat(path.join(root, 'pipe'))).mtimeMs });
  });

  it('edit_file and write_file refuse a FIFO', async () => {
    const ctx = makeContext(root);
    const e = await editFileTool.invoke(call('edit_file', { path: 'pipe', old_text: 'a', new_text: 'b' }), ctx);
    assert.equal(e.isError, true);
    assert.match(resultText(e), /not a file/);
    const w = await writeFileTool.invoke(call('write_file', { path: 'pipe', content: 'x' }), ctx);
    assert.equal(w.isError, true);
    assert.equal(ctx.approve.requests.length, 0);
  });

  it('a device is refused by the bounded reader', async function () {
    if (!existsSync('/dev/zero')) this.skip();
    await assert.rejects(readRegularFile('/dev/zero', 1024), /a device, not a regular file/);
  });

  it('listing and searching skip special files', async () => {
    const ws = createNodeWorkspace(root);
    assert.deepEqual((await ws.listFiles('**', { respectGitignore: true, limit: 10 })).files, ['ok.txt']);
    const { matches } = await ws.searchText('readable', { maxResults: 10 });
    assert.deepEqual(
      matches.map((m) => m.path),
      ['ok.txt'],
    );
  });

  it('reads at most the cap of a large file', async () => {
    const big = path.join(root, 'big.log');
    await fs.writeFile(big, 'héllo');
    await fs.truncate(big, 300 * 1024 * 1024);
    const r = await readRegularFile(big, 4096);
    assert.equal(r.bytes.length, 4096);
    assert.equal(r.truncated, true);
    assert.equal(r.size, 300 * 1024 * 1024);
    const ws = createNodeWorkspace(root);
    assert.equal(await ws.readFile('big.log', { maxBytes: 2 }), 'h', 'a character cut in half is dropped');
    await assert.rejects(ws.readFile('big.log'), /too large to read whole/);
  });
});
