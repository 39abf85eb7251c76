/**
 * Writes through symbolic links: a dangling link inside the workspace used to make `write_file`
 * create the file wherever the link pointed (outside the workspace) while the approval said
 * "Create notes.md". Every component of a written path is checked with lstat.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import { editFileTool } from '../../src/tools/builtin/edit-file';
import { writeFileTool } from '../../src/tools/builtin/write-file';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

describe('security: writes through symbolic links', function () {
  this.timeout(30_000);
  let root: string;
  let outside: string;

  beforeEach(async () => {
    outside = await tempWorkspace({ 'existing.txt': 'outside\n' });
    root = await tempWorkspace({ 'docs/guide.md': 'guide\n', 'src/a.ts': 'export const a = 1;\n' });
  });
  afterEach(async () => {
    await removeDir(root);
    await removeDir(outside);
  });

  it('refuses write_file through a dangling link to a file outside, asks nobody, creates nothing', async () => {
    await fs.symlink(path.join(outside, 'notes.md'), path.join(root, 'notes.md'));
    const ctx = makeContext(root);
    const r = await writeFileTool.invoke(call('write_file', { path: 'notes.md', content: 'pwned' }), ctx);
    assert.equal(r.isError, true);
    assert.match(resultText(r), /"notes\.md" is a symbolic link to ".*notes\.md", which does not exist/);
    assert.match(resultText(r), /Write to a path that is not a link/);
    assert.equal(ctx.approve.requests.length, 0);
    assert.equal(existsSync(path.join(outside, 'notes.md')), false);
  });

  it('refuses a dangling link even when it points inside the workspace', async () => {
    await fs.symlink('docs/missing.md', path.join(root, 'later.md'));
    const ctx = makeContext(root);
    const r = await writeFileTool.invoke(call('write_file', { path: 'later.md', content: 'x' }), ctx);
    assert.equal(r.isError, true);
    assert.match(resultText(r), /which does not exist/);
  });

  it('refuses a dangling folder link in the middle of the path', async () => {
    await fs.symlink(path.join(outside, 'nowhere'), path.join(root, 'out'));
    const ws = createNodeWorkspace(root);
    await assert.rejects(
      ws.writeFile('out/deep/file.txt', 'x'),
      (e: unknown) => e instanceof HeadroomError && /symbolic link.*does not exist/.test(e.message),
    );
    assert.equal(existsSync(path.join(outside, 'nowhere')), false);
  });

  it('refuses a link to an existing file outside, in write_file, edit_file and the port itself', async () => {
    await fs.symlink(path.join(outside, 'existing.txt'), path.join(root, 'ext.txt'));
    const ctx = makeContext(root);
    const w = await writeFileTool.invoke(call('write_file', { path: 'ext.txt', content: 'pwned' }), ctx);
    assert.match(resultText(w), /outside the workspace/);
    const e = await editFileTool.invoke(call('edit_file', { path: 'ext.txt', old_text: 'outside', new_text: 'pwned' }), ctx);
    assert.equal(e.isError, true);
    assert.match(resultText(e), /outside the workspace/);
    await assert.rejects(ctx.workspace.writeFile('ext.txt', 'pwned'), /outside the workspace/);
    await assert.rejects(ctx.workspace.applyEdit('ext.txt', 'pwned'), /outside the workspace/);
    assert.equal(await fs.readFile(path.join(outside, 'existing.txt'), 'utf8'), 'outside\n');
    assert.equal(ctx.approve.requests.length, 0);
  });

  it('a link inside the workspace is allowed, and the approval names the real target', async () => {
    await fs.symlink(path.join(root, 'docs/guide.md'), path.join(root, 'GUIDE.md'));
    await fs.symlink('docs', path.join(root, 'd'));
    const ctx = makeContext(root);
    const w = await writeFileTool.invoke(call('write_file', { path: 'GUIDE.md', content: 'new guide\n' }), ctx);
    assert.equal(w.isError, false, resultText(w));
    assert.match(resultText(w), /Overwrote docs\/guide\.md through the link GUIDE\.md/);
    assert.equal(ctx.approve.requests[0].kind === 'edit' && ctx.approve.requests[0].path, 'docs/guide.md');
    assert.equal((await fs.lstat(path.join(root, 'GUIDE.md'))).isSymbolicLink(), true, 'the link itself is kept');
    assert.equal(await fs.readFile(path.join(root, 'docs/guide.md'), 'utf8'), 'new guide\n');

    const e = await editFileTool.invoke(call('edit_file', { path: 'd/guide.md', old_text: 'new guide', new_text: 'edited guide' }), ctx);
    assert.equal(e.isError, false, resultText(e));
    assert.equal(ctx.approve.requests[1].kind === 'edit' && ctx.approve.requests[1].path, 'docs/guide.md');
    assert.equal(await fs.readFile(path.join(root, 'docs/guide.md'), 'utf8'), 'edited guide\n');
  });

  it('plain new files and new folders are still created', async () => {
    const ctx = makeContext(root);
    const w = await writeFileTool.invoke(call('write_file', { path: 'new/deep/file.txt', content: 'hi\n' }), ctx);
    assert.equal(w.isError, false, resultText(w));
    assert.match(resultText(w), /^Created new\/deep\/file\.txt \(1 line\)/);
    assert.equal(ctx.approve.requests[0].kind === 'edit' && ctx.approve.requests[0].path, 'new/deep/file.txt');
    assert.equal(await fs.readFile(path.join(root, 'new/deep/file.txt'), 'utf8'), 'hi\n');
  });

  it('refuses writing below a file or onto a FIFO', async function () {
    const ws = createNodeWorkspace(root);
    await assert.rejects(ws.resolveWriteTarget('src/a.ts/x.ts'), /is a file, not a folder/);
    if (process.platform === 'win32') return;
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    await assert.rejects(ws.writeFile('pipe', 'x'), /not a regular file/);
  });
});
