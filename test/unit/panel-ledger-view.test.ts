import * as assert from 'node:assert/strict';
import { WorkLedger } from '../../src/agent/ledger';
import { toLedgerView } from '../../src/panel/ledger-view';

describe('panel: "Work so far" shows the work ledger', () => {
  it('files, commands with exit codes, errors and the plan with states, newest first, and a headline', () => {
    const l = new WorkLedger();
    l.startTurn();
    l.recordFile('src/a.ts', 'read');
    l.recordCommand('npm test', 1, '.');
    l.startTurn();
    l.recordFile('src/b.ts', 'created');
    l.recordCommand('npm run build', 0, 'packages/x');
    l.recordError('run_command', 'Error: 2 tests failed\nmore');
    l.setPlan([
      { text: 'write the test', status: 'done' },
      { text: 'fix the bug', status: 'in_progress' },
      { text: 'update docs', status: 'open' },
    ]);
    const v = toLedgerView(l.toJSON());
    assert.equal(v.empty, false);
    assert.deepEqual(
      v.files.map((f) => `${f.action} ${f.path}`),
      ['created src/b.ts', 'read src/a.ts'],
    );
    assert.deepEqual(
      v.commands.map((c) => `${c.command} → ${c.exitCode} in ${c.cwd}`),
      ['npm run build → 0 in packages/x', 'npm test → 1 in .'],
    );
    assert.equal(v.errors[0].tool, 'run_command');
    assert.match(v.errors[0].firstLine, /^Error: 2 tests failed/);
    assert.deepEqual(
      v.plan.map((p) => p.status),
      ['done', 'in_progress', 'open'],
    );
    assert.equal(v.headline, '2 files · 2 commands (1 failed) · 1 error · plan 1/3 done');
    assert.equal(v.rolledUp, null);
  });

  it('says what rolled up instead of silently dropping it, and is empty before anything happened', () => {
    assert.equal(toLedgerView(new WorkLedger().toJSON()).empty, true);
    const l = new WorkLedger(undefined, { files: 2 });
    l.startTurn();
    for (const f of ['a', 'b', 'c', 'd']) l.recordFile(`${f}.ts`, 'read');
    const v = toLedgerView(l.toJSON());
    assert.equal(v.files.length, 2);
    assert.match(v.rolledUp ?? '', /2 older file entries/);
    assert.match(v.headline, /^4 files/);
  });
});
