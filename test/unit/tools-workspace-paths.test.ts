import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HeadroomError } from '../../src/common/errors';
import { readFileTool } from '../../src/tools/builtin/read-file';
import { writeFileTool } from '../../src/tools/builtin/write-file';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

describe('tools: paths stay inside the workspace', () => {
  let root: string;
  let outside: string;

  before(async () => {
    outside = await tempWorkspace({ 'secret.txt': 'top secret\n' });
    root = await tempWorkspace({ 'src/a.ts': 'export const a = 1;\n' });
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link-file'));
    await fs.symlink(outside, path.join(root, 'link-dir'));
    await fs.symlink(path.join(root, 'src'), path.join(root, 'inner-link'));
  });
  after(async () => {
    await removeDir(root);
    await removeDir(outside);
  });

  async function refused(p: string): Promise<string> {
    const ws = createNodeWorkspace(root);
    const err = await ws.resolvePath(p).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof HeadroomError, `expected ${p} to be refused`);
    assert.equal(err.kind, 'invalid_tool_input');
    assert.match(err.message, /outside the workspace/);
    return err.message;
  }

  it('refuses .. that climbs out', async () => {
    assert.match(await refused('../secret.txt'), /above the workspace root/);
    await refused('src/../../x');
  });

  it('refuses an absolute path elsewhere', async () => {
    assert.match(await refused(path.join(outside, 'secret.txt')), /absolute path elsewhere/);
    await refused('/etc/passwd');
  });

  it('refuses symbolic links that point out, also for files not yet created below them', async () => {
    assert.match(await refused('link-file'), /symbolic link/);
    await refused('link-dir/secret.txt');
    await refused('link-dir/new/file.txt');
  });

  it('accepts paths inside, absolute paths inside, links inside and files not yet created', async () => {
    const ws = createNodeWorkspace(root);
    assert.equal(await ws.resolvePath('src/a.ts'), path.join(root, 'src/a.ts'));
    assert.equal(await ws.resolvePath(path.join(root, 'src/a.ts')), path.join(root, 'src/a.ts'));
    assert.equal(await ws.resolvePath('inner-link/a.ts'), path.join(root, 'inner-link/a.ts'));
    assert.equal(await ws.resolvePath('new/deep/file.ts'), path.join(root, 'new/deep/file.ts'));
    assert.equal(await ws.resolvePath('src/../src/a.ts'), path.join(root, 'src/a.ts'));
  });

  it('tools report the refusal to the model and touch nothing', async () => {
    const ctx = makeContext(root);
    const r = await readFileTool.invoke(call('read_file', { path: '../' + path.basename(outside) + '/secret.txt' }), ctx);
    assert.equal(r.isError, true);
    assert.match(resultText(r), /outside the workspace/);
    assert.doesNotMatch(resultText(r), /top secret/);

    const w = await writeFileTool.invoke(call('write_file', { path: 'link-dir/evil.txt', content: 'x' }), ctx);
    assert.equal(w.isError, true);
    assert.match(resultText(w), /outside the workspace/);
    assert.equal(ctx.approve.requests.length, 0, 'nobody is asked to approve a refused path');
    await assert.rejects(fs.stat(path.join(outside, 'evil.txt')));
  });

  it('does not list or search through links that point out', async () => {
    const ws = createNodeWorkspace(root);
    const { files } = await ws.listFiles('**', { respectGitignore: true, limit: 100 });
    // Links to folders are not followed at all; the link to an outside file is skipped.
    assert.deepEqual(files, ['src/a.ts']);
    const { matches } = await ws.searchText('secret', { maxResults: 10 });
    assert.deepEqual(matches, []);
  });
});
