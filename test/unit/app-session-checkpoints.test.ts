import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createFakeWorld, talk, type FakeWorld } from '../fixtures/app/fake-environment';

/** Checkpoints through the session service: a turn edits files, Restore puts them back and rewinds the conversation. */
describe('session service: per-turn checkpoints', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'notes.txt': 'alpha\nbeta\n' })));
  afterEach(async () => world?.close());

  async function twoTurns() {
    const opened = await world.open();
    const { service } = opened;
    world.server.script.push({ text: 'Hello.' });
    await service.turns.prompt('first, no edits');
    assert.equal(service.checkpoints.turnChanges(), undefined, 'a turn without writes has no changes');
    world.server.script.push(
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'beta', new_text: 'gamma\ndelta' } }] },
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'made/new.txt', content: 'fresh\n' } }] },
      { text: 'Done.' },
    );
    await service.turns.prompt('second, edits two files');
    assert.deepEqual(
      service.records
        .ledger()
        .files.map((f) => f.path)
        .sort(),
      ['made/new.txt', 'notes.txt'],
      'the ledger lists both files',
    );
    return opened;
  }

  it('lists the files a turn changed and restores files and conversation to before that turn', async () => {
    const { service } = await twoTurns();
    const changes = service.checkpoints.turnChanges();
    assert.deepEqual(changes, {
      turn: 2,
      files: [
        { path: 'notes.txt', change: 'modified', added: 2, removed: 1, restorable: true },
        { path: 'made/new.txt', change: 'created', added: 1, removed: 0, restorable: true },
      ],
    });
    const diff = await service.checkpoints.diff(2, 'notes.txt');
    assert.equal(diff.before, 'alpha\nbeta\n');
    assert.equal(diff.current, path.join(await fs.realpath(world.folder), 'notes.txt'));
    const transcriptBefore = service.sessions.state().transcriptCount;
    let asked = false;
    const outcome = await service.checkpoints.restore(2, () => {
      asked = true;
      return Promise.resolve('overwrite');
    });
    assert.equal(asked, false, 'nothing was changed since the turn: no question');
    assert.deepEqual(outcome?.restored, ['notes.txt', 'made/new.txt']);
    // The rewound prompt goes back to the person (the panel puts it in the message box).
    assert.equal(outcome?.prompt?.content[0].type === 'text' && outcome.prompt.content[0].text, 'second, edits two files');
    assert.equal(outcome?.rewoundPrompts, 1);
    assert.equal(await fs.readFile(path.join(world.folder, 'notes.txt'), 'utf8'), 'alpha\nbeta\n');
    await assert.rejects(fs.stat(path.join(world.folder, 'made/new.txt')));
    // The conversation is what it was before turn 2; the transcript keeps everything.
    assert.deepEqual(
      service.sessions.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(service.sessions.state().transcriptCount, transcriptBefore);
    // "Work so far" went back too: it listed both files after turn 2, and lists neither now (one no longer exists).
    assert.deepEqual(
      service.records.ledger().files.map((f) => f.path),
      [],
      'the ledger is as it was before turn 2',
    );
    await assert.rejects(
      service.checkpoints.restore(2, () => Promise.resolve('overwrite')),
      /already restored/,
    );
    // The next turn continues from the rewound conversation.
    world.server.script.push({ text: 'Again.' });
    await service.turns.prompt('third');
    const last = world.server.requests.at(-1)!;
    assert.equal(JSON.stringify(last.body).includes('second, edits two files'), false, 'the rewound turn is not sent again');
  });

  it('asks before overwriting a file changed after the turn; "keep" leaves it, "cancel" changes nothing', async () => {
    const { service } = await twoTurns();
    await fs.writeFile(path.join(world.folder, 'notes.txt'), 'my own edit\n');
    const asked: string[][] = [];
    const cancelled = await service.checkpoints.restore(2, (paths) => {
      asked.push(paths);
      return Promise.resolve('cancel');
    });
    assert.equal(cancelled, undefined);
    assert.deepEqual(asked, [['notes.txt']]);
    assert.equal(await fs.readFile(path.join(world.folder, 'made/new.txt'), 'utf8'), 'fresh\n', 'cancel changed nothing');
    assert.equal(service.sessions.messages.length, 8, 'and the conversation was not rewound');
    const kept = await service.checkpoints.restore(2, () => Promise.resolve('keep'));
    assert.deepEqual(kept?.kept, ['notes.txt']);
    assert.equal(await fs.readFile(path.join(world.folder, 'notes.txt'), 'utf8'), 'my own edit\n');
    await assert.rejects(fs.stat(path.join(world.folder, 'made/new.txt')));
  });

  it('rewinds to before the turn also after a compaction summarized that turn (the transcript up to the turn)', async () => {
    const { service } = await world.open();
    await talk(world, service, 3);
    world.server.script.push(
      { toolCalls: [{ id: 'w9', name: 'write_file', arguments: { path: 'later.txt', content: 'x\n' } }] },
      { text: 'Wrote it.' },
    );
    await service.turns.prompt('write later.txt');
    const turn = service.checkpoints.turnChanges()!.turn;
    await talk(world, service, 2, 'After');
    world.server.script.push({ text: 'Summary: everything so far.' });
    assert.ok(await service.compactions.compact(), 'a compaction ran after the turn');
    await service.checkpoints.restore(turn, () => Promise.resolve('overwrite'));
    await assert.rejects(fs.stat(path.join(world.folder, 'later.txt')));
    const text = JSON.stringify(service.sessions.messages);
    assert.ok(text.includes('Instruction 2:'), 'the turns before it are back');
    assert.ok(!text.includes('write later.txt') && !text.includes('After 0'), 'that turn and the later ones are not');
    assert.ok(!text.includes('Summary: everything so far.'), 'the summary that covered the turn is not used');
  });
});
