import assert from 'node:assert/strict';
import { runCommandTool } from '../../src/tools/builtin/run-command';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

describe('tools: run_command', () => {
  let root: string;
  before(async () => {
    root = await tempWorkspace({ 'sub/file.txt': 'hello' });
  });
  after(() => removeDir(root));

  it('asks approval, runs in the workspace, streams output and reports the exit code', async () => {
    const ctx = makeContext(root);
    const r = await runCommandTool.invoke(call('run_command', { command: 'echo out; echo err 1>&2; ls', cwd: 'sub' }), ctx);
    assert.equal(r.isError, false, resultText(r));
    const text = resultText(r);
    assert.match(text, /^\$ echo out; echo err 1>&2; ls\n/);
    assert.match(text, /out/);
    assert.match(text, /err/);
    assert.match(text, /file\.txt/);
    assert.match(text, /\[exit code 0\]$/);
    assert.match(ctx.output.join(''), /out/);
    assert.deepEqual(
      ctx.approve.requests.map((q) => q.kind === 'command' && [q.command, q.cwd]),
      [['echo out; echo err 1>&2; ls', 'sub']],
    );
  });

  it('marks a failing command as an error with its exit code', async () => {
    const r = await runCommandTool.invoke(call('run_command', { command: 'exit 3' }), makeContext(root));
    assert.equal(r.isError, true);
    assert.match(resultText(r), /\(no output\)\n\[exit code 3\]$/);
  });

  it('kills a command at its timeout, children included', async () => {
    const r = await runCommandTool.invoke(
      call('run_command', { command: 'echo started; sleep 30; echo never', timeout_seconds: 1 }),
      makeContext(root),
    );
    assert.equal(r.isError, true);
    const text = resultText(r);
    assert.match(text, /started/);
    assert.doesNotMatch(text, /^never$/m);
    assert.match(text, /\[timed out after 1 s; the command was killed\]/);
  });

  it('stops the command when the turn is aborted', async () => {
    const controller = new AbortController();
    const ctx = makeContext(root, { signal: controller.signal });
    ctx.onOutput = () => controller.abort();
    const r = await runCommandTool.invoke(call('run_command', { command: 'echo go; sleep 30' }), ctx);
    assert.equal(r.errorKind, 'aborted');
  });

  it('refuses a working folder outside the workspace before asking', async () => {
    const ctx = makeContext(root);
    const r = await runCommandTool.invoke(call('run_command', { command: 'ls', cwd: '..' }), ctx);
    assert.equal(r.isError, true);
    assert.match(resultText(r), /outside the workspace/);
    assert.equal(ctx.approve.requests.length, 0);
  });

  it('reports a rejected command with the reason and does not run it', async () => {
    const ctx = makeContext(root, { decision: { approved: false, reason: 'no network' } });
    const r = await runCommandTool.invoke(call('run_command', { command: 'touch ran.txt' }), ctx);
    assert.match(resultText(r), /The user rejected the command `touch ran\.txt`; it was not run\. The user's reason: "no network"/);
    assert.equal(await ctx.workspace.stat('ran.txt'), undefined);
  });
});
