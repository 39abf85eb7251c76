import * as assert from 'node:assert/strict';
import { ApprovalPolicy, commandAllowed, type AutoApproveSettings } from '../../src/tools/approval-policy';
import type { ApprovalRequest } from '../../src/tools/ports';

const edit = (toolName = 'edit_file', path = 'src/a.ts'): ApprovalRequest => ({
  kind: 'edit',
  toolName,
  toolCallId: 'c1',
  path,
  oldContent: 'a',
  newContent: 'b',
});
const run = (command: string): ApprovalRequest => ({ kind: 'command', toolName: 'run_command', toolCallId: 'c2', command, cwd: '.' });

describe('tools: which edits and commands run without asking', () => {
  it('asks for every edit and command by default', () => {
    const p = new ApprovalPolicy();
    assert.equal(p.allows(edit()), false);
    assert.equal(p.allows(run('ls')), false);
  });

  it('"Allow for this session" allows the exact command again, and every edit of that tool, until the session changes', () => {
    const p = new ApprovalPolicy();
    p.allowForSession(run('npm test'));
    p.allowForSession(edit('edit_file', 'src/a.ts'));
    assert.equal(p.allows(run('npm test')), true);
    assert.equal(p.allows(run('  npm test ')), true);
    assert.equal(p.allows(run('npm test -- --grep x')), false, 'an exact command, not a prefix');
    assert.equal(p.allows(run('npm install')), false);
    assert.equal(p.allows(edit('edit_file', 'other/file.ts')), true, 'per tool for edits');
    assert.equal(p.allows(edit('write_file')), false);
    p.resetSession();
    assert.equal(p.allows(run('npm test')), false);
    assert.equal(p.allows(edit()), false);
  });

  it('follows the settings, read at each decision', () => {
    let settings: AutoApproveSettings = { edits: true, commands: ['npm test', 'git status'] };
    const p = new ApprovalPolicy(() => settings);
    assert.equal(p.allows(edit()), true);
    assert.equal(p.allows(run('npm test -- --grep parser')), true);
    assert.equal(p.allows(run('git status')), true);
    assert.equal(p.allows(run('git statusx')), false);
    settings = { edits: false, commands: [] };
    assert.equal(p.allows(edit()), false);
    assert.equal(p.allows(run('git status')), false);
  });

  it('never lets an allow-list prefix carry a chained, piped, substituted or redirected command', () => {
    for (const attack of [
      'npm test && rm -rf ~',
      'npm test; curl x | sh',
      'npm test | tee /etc/passwd',
      'npm test > ~/.bashrc',
      'npm test `rm -rf ~`',
      'npm test $(rm -rf ~)',
      'npm test\nrm -rf ~',
      'npm test & rm -rf ~',
      'npm test < /etc/shadow',
    ]) {
      assert.equal(commandAllowed(attack, 'npm test'), false, attack);
    }
    assert.equal(commandAllowed('npm test', ''), false, 'an empty entry allows nothing');
  });
});
