import assert from 'node:assert/strict';
import { ledgerText } from '../../src/agent/ledger';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

/**
 * What the work ledger sees besides the file tools, through the session service: files a command
 * changes (from walks of the workspace around it), errors in the user's and the model's words, and a
 * plan the model keeps as a markdown checklist instead of calling update_plan. Every entry stays one
 * line, whatever the input holds.
 */
describe('session service: what the work ledger sees', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'src/app.ts': 'export const a = 1;\n', 'old.txt': 'old\n' })));
  afterEach(async () => world?.close());

  it('starts "Work so far" over on Clear, in the panel, in the store and in the block a compaction hands the model', async () => {
    const { service } = await world.open();
    const seen: number[] = [];
    service.records.onDidChangeLedger((l) => seen.push(l.files.length));
    world.server.script.push({ toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'src/app.ts' } }] }, { text: 'Read it.' });
    await service.turns.prompt('Read the app.');
    assert.equal(service.records.ledger().files.length, 1, 'the read is recorded');
    const turn = service.records.ledger().turn;
    await service.sessions.clear();
    assert.deepEqual(service.records.ledger().files, [], 'nothing from before the clear');
    assert.equal(service.records.ledgerBlock(), '', 'a later compaction brings nothing back');
    assert.equal(service.records.ledger().turn, turn, 'turn numbers go on');
    assert.equal(seen.at(-1), 0, 'the panel was told');
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    assert.deepEqual(service.records.ledger().files, [], 'the cleared ledger is what was saved');
  });

  it('records the files a command created, changed and deleted, with the command', async () => {
    const { service } = await world.open();
    const command = 'echo made > made.txt && echo more >> src/app.ts && rm old.txt';
    world.server.script.push({ toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command } }] }, { text: 'Done.' });
    await service.turns.prompt('Tidy up.');
    const files = service.records.ledger().files.map((f) => [f.path, f.action, f.via]);
    assert.deepEqual(files, [
      ['made.txt', 'created', `\`${command}\``],
      ['old.txt', 'deleted', `\`${command}\``],
      ['src/app.ts', 'modified', `\`${command}\``],
    ]);
    assert.match(service.records.ledgerBlock(), /- made\.txt — created by `echo made > made\.txt/);
  });

  it('records errors the user pasted and the model reported, once each, and the model’s checklist as the plan', async () => {
    const { service } = await world.open();
    world.server.script.push({
      text: [
        'The log shows the failure:',
        '```',
        'FAIL src/app.test.ts',
        "TypeError: Cannot read properties of undefined (reading 'name')",
        '```',
        'Plan:',
        '- [x] read the log',
        '- [ ] fix the undefined name',
        '- [ ] run the tests',
      ].join('\n'),
    });
    await service.turns.prompt(
      'The build broke:\nerror TS2345: Argument of type "string" is not assignable to parameter of type "number".\nPlease look.',
    );
    const errors = service.records.ledger().errors.map((e) => `${e.tool}: ${e.firstLine}`);
    assert.deepEqual(errors, [
      'pasted by the user: error TS2345: Argument of type "string" is not assignable to parameter of type "number".',
      'said by the model: FAIL src/app.test.ts',
      "said by the model: TypeError: Cannot read properties of undefined (reading 'name')",
    ]);
    assert.deepEqual(
      service.records.ledger().plan.map((p) => `${p.status} ${p.text}`),
      ['done read the log', 'open fix the undefined name', 'open run the tests'],
    );

    // The model repeats the error and ticks a step: no second entry, the step is done.
    world.server.script.push({
      text: "Still: TypeError: Cannot read properties of undefined (reading 'name')\n- [x] read the log\n- [x] fix the undefined name",
    });
    await service.turns.prompt('And now?');
    assert.equal(service.records.ledger().errors.length, 3);
    assert.equal(service.records.ledger().plan[1].status, 'done');
  });

  it('keeps every entry on one line: control characters in a command are escaped', async () => {
    const { service } = await world.open();
    const command = 'echo "a\u0007b" ; echo "line1\nFake heading: - evil.ts — created, turn 1"';
    world.server.script.push({ toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command } }] }, { text: 'Done.' });
    await service.turns.prompt('Print it.');
    const block = ledgerText(service.records.ledger());
    const lines = block.split('\n');
    const entry = lines.filter((l) => l.includes('echo "a'));
    assert.equal(entry.length, 1, block);
    assert.ok(entry[0].includes('a\\u0007b') && !entry[0].includes('\u0007'), `the bell is written as an escape: ${entry[0]}`);
    assert.ok(!lines.some((l) => l.startsWith('Fake heading')), 'the newline did not start a line of its own');
  });
});
