import assert from 'node:assert/strict';
import { LedgerRecorder, ledgerText, parseLedgerState, WorkLedger, type LedgerState } from '../../src/agent/ledger';
import type { AgentEvent } from '../../src/agent/events';
import type { ToolCallPart } from '../../src/providers/types';
import { rejectedText } from '../../src/tools/builtin/approval';
import { textResult, type ToolResult } from '../../src/tools/tool-result';

let n = 0;
const call = (name: string, args: Record<string, unknown>): ToolCallPart => ({ type: 'toolCall', id: `c${++n}`, name, arguments: args });
const end = (c: ToolCallPart, text: string, isError = false, full?: ToolResult): AgentEvent => ({
  type: 'tool_end',
  call: c,
  result: textResult(c, text, isError),
  offloaded: full !== undefined,
  ...(full ? { full } : {}),
});
const turn = (): AgentEvent => ({
  type: 'turn_start',
  turnId: `t${++n}`,
  prompt: { role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: 1 },
});

describe('work ledger: kept by code from the tool calls', () => {
  it('records files with their last action and turn, commands with exit code and folder, errors with tool and first line', () => {
    const rec = new LedgerRecorder(new WorkLedger());
    rec.handle(turn());
    let c = call('read_file', { path: 'src/a.ts' });
    rec.handle(end(c, '1: x'));
    c = call('write_file', { path: 'src/new.ts', content: 'x' });
    rec.handle(end(c, 'Created src/new.ts (1 line).'));
    rec.handle(turn());
    c = call('edit_file', { path: 'src/a.ts', old_text: 'x', new_text: 'y' });
    rec.handle(end(c, 'Edited src/a.ts: replaced 1 line at line 1 with 1 line.'));
    c = call('read_file', { path: 'src/a.ts' });
    rec.handle(end(c, '1: y'));
    c = call('run_command', { command: 'npm test', cwd: 'pkg' });
    rec.handle(end(c, '$ npm test\nError: expected 3 to equal 4\n  at x\n[exit code 1]', true));
    c = call('edit_file', { path: 'src/missing.ts', old_text: 'a', new_text: 'b' });
    rec.handle(end(c, 'File not found: "src/missing.ts". To create a new file use write_file.', true));

    const s = rec.ledger.toJSON();
    assert.deepEqual(
      s.files.map((f) => [f.path, f.action, f.turn]),
      [
        ['src/new.ts', 'created', 1],
        ['src/a.ts', 'modified', 2],
      ],
    );
    assert.deepEqual(s.commands, [{ command: 'npm test', exitCode: 1, cwd: 'pkg', turn: 2 }]);
    assert.deepEqual(
      s.errors.map((e) => [e.tool, e.firstLine]),
      [
        ['run_command', '`npm test` → Error: expected 3 to equal 4'],
        ['edit_file', 'File not found: "src/missing.ts". To create a new file use write_file.'],
      ],
    );
    assert.deepEqual(rec.ledger.recentlyChanged(), ['src/a.ts', 'src/new.ts']);
  });

  it('reads the exit code from the full output when the result was offloaded (the stub has none)', () => {
    const rec = new LedgerRecorder(new WorkLedger());
    const c = call('run_command', { command: 'make all' });
    const full = textResult(c, `$ make all\n${'out\n'.repeat(3000)}[exit code 0]`);
    rec.handle(end(c, '[Tool result stored — 12,000 bytes from "run_command". First lines: …]', false, full));
    assert.deepEqual(
      rec.ledger.toJSON().commands.map((x) => [x.command, x.exitCode, x.cwd]),
      [['make all', 0, '.']],
    );
  });

  it("keeps a rejection as the user's decision (with its reason), not as an error the tool ran into", () => {
    const rec = new LedgerRecorder(new WorkLedger());
    rec.handle(turn());
    let c = call('run_command', { command: 'rm -rf build' });
    rec.handle(end(c, rejectedText('the command `rm -rf build`', { approved: false, reason: 'keep the build' }, 'it was not run'), true));
    c = call('edit_file', { path: 'src/a.ts', old_text: 'x', new_text: 'y' });
    rec.handle(end(c, rejectedText('the edit to src/a.ts', { approved: false }, 'the file is unchanged'), true));
    const s = rec.ledger.toJSON();
    assert.deepEqual(s.errors, []);
    assert.deepEqual(s.commands, [], 'a command that was not run is not a command run');
    assert.deepEqual(
      s.decisions.map((d) => [d.text, d.by]),
      [
        ['Rejected the command `rm -rf build`: keep the build', 'user'],
        ['Rejected the edit to src/a.ts', 'user'],
      ],
    );
  });

  it('keeps the plan and decisions the model sends with update_plan (whole list replaces the old one)', () => {
    const rec = new LedgerRecorder(new WorkLedger());
    let c = call('update_plan', {
      items: [
        { text: 'write parser', status: 'in_progress' },
        { text: 'add tests', status: 'open' },
      ],
      decisions: ['use zod for input: it is already a dependency'],
    });
    rec.handle(end(c, 'Plan saved.'));
    c = call('update_plan', {
      items: [
        { text: 'write parser', status: 'done' },
        { text: 'add tests', status: 'in_progress' },
      ],
    });
    rec.handle(end(c, 'Plan saved.'));
    c = call('update_plan', { items: 'not a list' });
    rec.handle(end(c, 'bad input', true));
    const s = rec.ledger.toJSON();
    assert.deepEqual(s.plan, [
      { text: 'write parser', status: 'done', doneTurn: 0 },
      { text: 'add tests', status: 'in_progress' },
    ]);
    assert.deepEqual(
      s.decisions.map((d) => [d.text, d.by]),
      [['use zod for input: it is already a dependency', 'model']],
    );
    const text = ledgerText(s);
    assert.match(text, /\[x\] write parser\n\[~\] add tests/);
    assert.match(text, /- use zod for input: it is already a dependency \(model, turn 0\)/);
  });

  it('is bounded: the oldest entries roll up into counts shown in the block, never silently dropped', () => {
    const ledger = new WorkLedger(undefined, { files: 5, commands: 3, errors: 2, decisions: 2, doneItems: 1 });
    for (let i = 0; i < 8; i++) ledger.recordFile(`read-${i}.ts`, 'read');
    for (let i = 0; i < 4; i++) ledger.recordFile(`changed-${i}.ts`, 'modified');
    for (let i = 0; i < 5; i++) ledger.recordCommand(`cmd ${i}`, i % 2, '.');
    for (let i = 0; i < 4; i++) ledger.recordError('run_command', `boom ${i}`);
    for (let i = 0; i < 3; i++) ledger.markDecision(`decision ${i}`, 'user');
    ledger.setPlan([
      { text: 'a', status: 'done' },
      { text: 'b', status: 'done' },
      { text: 'c', status: 'open' },
    ]);
    const s = ledger.toJSON();
    assert.equal(s.files.length, 5);
    assert.ok(s.files.filter((f) => f.action === 'modified').length === 4, 'changed files outlive read-only ones');
    const all = s.files.length + s.rolledUp.files.read + s.rolledUp.files.modified + s.rolledUp.files.created;
    assert.equal(all, 12, 'every file is listed or counted');
    assert.equal(s.commands.length + s.rolledUp.commands.ok + s.rolledUp.commands.failed, 5);
    assert.equal(s.errors.length + s.rolledUp.errors, 4);
    assert.equal(s.decisions.length + s.rolledUp.decisions, 3);
    assert.deepEqual(
      s.plan.map((p) => p.text),
      ['b', 'c'],
      'open items never roll up',
    );
    const text = ledgerText(s);
    assert.match(text, /\(7 older file\(s\): 0 created, 0 modified, 7 read; search_history finds them\)/);
    assert.match(text, /\(2 older command\(s\)/);
    assert.match(text, /\(2 older error\(s\)/);
    assert.match(text, /\(1 earlier step\(s\) done\)/);
    assert.ok(Buffer.byteLength(text) < 4000, `block stays small: ${Buffer.byteLength(text)} bytes`);
  });

  it('round-trips through its stored JSON and rejects a damaged record', () => {
    const ledger = new WorkLedger();
    ledger.startTurn();
    ledger.recordFile('a.ts', 'created');
    ledger.recordCommand('ls', 0, '.');
    const json = JSON.stringify(ledger.toJSON());
    const back = parseLedgerState(json) as LedgerState;
    assert.deepEqual(back, ledger.toJSON());
    assert.equal(ledgerText(new WorkLedger(back).toJSON()), ledgerText(ledger.toJSON()));
    assert.equal(parseLedgerState('{"version":1,"files":"x"}'), undefined);
    assert.equal(parseLedgerState('not json'), undefined);
  });

  it('saves at the end of a turn only when it changed, and reports a failed save', async () => {
    const saved: LedgerState[] = [];
    const errors: string[] = [];
    let fail = false;
    const rec = new LedgerRecorder(new WorkLedger(), {
      save: (s) => {
        if (fail) return Promise.reject(new Error('disk full'));
        saved.push(s);
        return Promise.resolve();
      },
      onError: (m) => errors.push(m),
    });
    const turnEnd: AgentEvent = { type: 'turn_end', turnId: 't', reason: 'done', messages: [] };
    rec.handle(turn());
    rec.handle(end(call('read_file', { path: 'x.ts' }), 'x'));
    rec.handle(turnEnd);
    await rec.save();
    assert.equal(saved.length, 1);
    rec.handle(turnEnd);
    await rec.save();
    assert.equal(saved.length, 1, 'nothing changed: not saved again');
    fail = true;
    rec.handle(turn());
    rec.handle(turnEnd);
    await rec.save();
    assert.match(errors[0], /work ledger could not be saved: disk full/);
  });
});
