import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { editFileTool } from '../../src/tools/builtin/edit-file';
import { runCommandTool } from '../../src/tools/builtin/run-command';
import { writeFileTool } from '../../src/tools/builtin/write-file';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

const SOURCE = 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n';

describe('tools: edit_file and write_file', () => {
  let root: string;
  beforeEach(async () => {
    root = await tempWorkspace({ 'src/x.ts': SOURCE, 'win.txt': 'alpha\r\nbeta\r\n' });
  });
  afterEach(() => removeDir(root));
  const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');

  it('replaces a unique match after approval, showing the proposed content', async () => {
    const ctx = makeContext(root);
    const r = await editFileTool.invoke(
      call('edit_file', { path: 'src/x.ts', old_text: 'function b() {\n  return 1;', new_text: 'function b() {\n  return 2;' }),
      ctx,
    );
    assert.equal(r.isError, false, resultText(r));
    assert.match(resultText(r), /Edited src\/x\.ts: replaced 2 lines at line 5 with 2 lines/);
    const expected = SOURCE.replace('b() {\n  return 1;', 'b() {\n  return 2;');
    assert.equal(await read('src/x.ts'), expected);
    assert.equal(ctx.approve.requests.length, 1);
    const req = ctx.approve.requests[0];
    assert.equal(req.kind, 'edit');
    if (req.kind === 'edit') {
      assert.equal(req.path, 'src/x.ts');
      assert.equal(req.oldContent, SOURCE);
      assert.equal(req.newContent, expected);
      assert.equal(req.toolCallId, ctx.approve.requests[0].toolCallId);
    }
  });

  it('refuses when old_text matches more than once, naming the lines', async () => {
    const ctx = makeContext(root);
    const r = await editFileTool.invoke(call('edit_file', { path: 'src/x.ts', old_text: 'return 1;', new_text: 'return 3;' }), ctx);
    assert.equal(r.isError, true);
    assert.match(resultText(r), /old_text matches 2 places in src\/x\.ts \(lines 2, 6\)/);
    assert.match(resultText(r), /Include more surrounding lines/);
    assert.equal(await read('src/x.ts'), SOURCE);
    assert.equal(ctx.approve.requests.length, 0);
  });

  it('refuses when old_text is not found, hinting at a whitespace mismatch', async () => {
    const ctx = makeContext(root);
    const r = await editFileTool.invoke(
      call('edit_file', { path: 'src/x.ts', old_text: 'return 1;\n}\n\nfunction c', new_text: 'x' }),
      ctx,
    );
    assert.equal(r.isError, true);
    assert.match(resultText(r), /old_text was not found in src\/x\.ts/);
    assert.match(resultText(r), /at line 2, 6/);
    assert.equal(await read('src/x.ts'), SOURCE);
  });

  it('keeps CRLF line endings when the model writes \\n', async () => {
    const r = await editFileTool.invoke(
      call('edit_file', { path: 'win.txt', old_text: 'alpha\nbeta', new_text: 'alpha\ngamma' }),
      makeContext(root),
    );
    assert.equal(r.isError, false, resultText(r));
    assert.equal(await read('win.txt'), 'alpha\r\ngamma\r\n');
  });

  it('rejects identical texts, empty old_text and missing files', async () => {
    const ctx = makeContext(root);
    const same = await editFileTool.invoke(call('edit_file', { path: 'src/x.ts', old_text: 'a()', new_text: 'a()' }), ctx);
    assert.match(resultText(same), /identical/);
    const empty = await editFileTool.invoke(call('edit_file', { path: 'src/x.ts', old_text: '', new_text: 'x' }), ctx);
    assert.equal(empty.errorKind, 'invalid_tool_input');
    assert.match(resultText(empty), /old_text/);
    const missing = await editFileTool.invoke(call('edit_file', { path: 'nope.ts', old_text: 'a', new_text: 'b' }), ctx);
    assert.match(resultText(missing), /File not found.*write_file/);
  });

  it('reports a rejected edit with the user reason and leaves the file alone', async () => {
    const ctx = makeContext(root, { decision: { approved: false, reason: 'keep returning 1' } });
    const r = await editFileTool.invoke(
      call('edit_file', { path: 'src/x.ts', old_text: 'function a() {\n  return 1;', new_text: 'function a() {\n  return 9;' }),
      ctx,
    );
    assert.equal(r.isError, true);
    assert.match(
      resultText(r),
      /The user rejected the edit to src\/x\.ts; the file was not changed\. The user's reason: "keep returning 1"/,
    );
    assert.equal(await read('src/x.ts'), SOURCE);
  });

  it('write_file creates files (with folders) and overwrites after approval', async () => {
    const ctx = makeContext(root);
    const created = await writeFileTool.invoke(call('write_file', { path: 'new/dir/n.txt', content: 'a\nb\n' }), ctx);
    assert.equal(resultText(created), 'Created new/dir/n.txt (2 lines).');
    assert.equal(await read('new/dir/n.txt'), 'a\nb\n');
    const req = ctx.approve.requests[0];
    assert.ok(req.kind === 'edit' && req.oldContent === undefined && req.newContent === 'a\nb\n');
    const over = await writeFileTool.invoke(call('write_file', { path: 'new/dir/n.txt', content: 'c' }), ctx);
    assert.equal(resultText(over), 'Overwrote new/dir/n.txt (1 line).');
    const same = await writeFileTool.invoke(call('write_file', { path: 'new/dir/n.txt', content: 'c' }), ctx);
    assert.match(resultText(same), /already has exactly this content/);
    assert.equal(ctx.approve.requests.length, 2);
  });

  it('write_file reports a rejection without a reason', async () => {
    const ctx = makeContext(root, { decision: { approved: false } });
    const r = await writeFileTool.invoke(call('write_file', { path: 'n.txt', content: 'x' }), ctx);
    assert.match(resultText(r), /^The user rejected writing n\.txt; the file was not changed\. Do not repeat/);
    await assert.rejects(fs.stat(path.join(root, 'n.txt')));
  });

  it('an approval port that fails counts as a rejection', async () => {
    const ctx = makeContext(root);
    ctx.approve.request = () => Promise.reject(new Error('panel closed'));
    const r = await writeFileTool.invoke(call('write_file', { path: 'n.txt', content: 'x' }), ctx);
    assert.match(resultText(r), /The user rejected/);
  });

  it('in an untrusted workspace edits, writes and commands are refused without asking', async () => {
    const ctx = makeContext(root, { trusted: false });
    const results = [
      await editFileTool.invoke(call('edit_file', { path: 'src/x.ts', old_text: 'a()', new_text: 'z()' }), ctx),
      await writeFileTool.invoke(call('write_file', { path: 'n.txt', content: 'x' }), ctx),
      await runCommandTool.invoke(call('run_command', { command: 'touch ran.txt' }), ctx),
    ];
    for (const r of results) {
      assert.equal(r.isError, true);
      assert.match(resultText(r), /not trusted/);
    }
    assert.equal(ctx.approve.requests.length, 0);
    assert.equal(await read('src/x.ts'), SOURCE);
    await assert.rejects(fs.stat(path.join(root, 'n.txt')));
    await assert.rejects(fs.stat(path.join(root, 'ran.txt')));
  });
});
