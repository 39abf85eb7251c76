import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

/** Restore checkpoint against a workspace that changed under it: later turns, edits during the question, links. */
describe('security: Restore checkpoint puts back only what it recorded, where it recorded it', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'other/keep.txt': 'precious\n' })));
  afterEach(async () => world?.close());
  const read = (p: string) => fs.readFile(path.join(world.folder, p), 'utf8');
  const edit = (id: string, p: string, from: string, to: string) => ({
    toolCalls: [{ id, name: 'edit_file', arguments: { path: p, old_text: from, new_text: to } }],
  });
  const write = (id: string, p: string, content: string) => ({ toolCalls: [{ id, name: 'write_file', arguments: { path: p, content } }] });

  it('restoring an earlier turn restores the later turns first: no later file is left behind', async () => {
    const { service } = await world.open();
    world.server.script.push(edit('e1', 'a.txt', 'a0', 'a1'), { text: 'one' });
    await service.turns.prompt('turn one');
    world.server.script.push(edit('e2', 'a.txt', 'a1', 'a2'), write('w2', 'later.txt', 'from turn two\n'), { text: 'two' });
    await service.turns.prompt('turn two');
    let asked: string[] | undefined;
    const outcome = await service.checkpoints.restore(1, (paths) => ((asked = paths), Promise.resolve('overwrite')));
    assert.equal(asked, undefined, 'nobody changed a file after the turns: no question');
    assert.equal(await read('a.txt'), 'a0\n');
    await assert.rejects(read('later.txt'), 'the later turn created it: it is gone too');
    assert.deepEqual(outcome?.restored.sort(), ['a.txt', 'later.txt']);
  });

  it('keeps a file edited while the overwrite question was open', async () => {
    const { service } = await world.open();
    world.server.script.push(edit('e1', 'a.txt', 'a0', 'a1'), edit('e2', 'b.txt', 'b0', 'b1'), { text: 'done' });
    await service.turns.prompt('edit both');
    await fs.writeFile(path.join(world.folder, 'a.txt'), 'mine before\n');
    const outcome = await service.checkpoints.restore(1, async (paths) => {
      assert.deepEqual(paths, ['a.txt']);
      // While the question is open the person keeps working.
      await fs.writeFile(path.join(world.folder, 'a.txt'), 'mine during\n');
      await fs.writeFile(path.join(world.folder, 'b.txt'), 'also mine\n');
      return 'overwrite';
    });
    assert.equal(await read('a.txt'), 'mine during\n', 'the answer was about the content shown, not this one');
    assert.equal(await read('b.txt'), 'also mine\n', 'b.txt changed after the check: not overwritten');
    assert.deepEqual(outcome?.kept.sort(), ['a.txt', 'b.txt']);
  });

  it('writes through no link: a folder replaced by a link to another folder does not redirect the restore', async () => {
    const { service } = await world.open();
    world.server.script.push(write('w1', 'sub/keep.txt', 'made by the turn\n'), { text: 'done' });
    await service.turns.prompt('make sub/keep.txt');
    // The folder becomes a link to another folder of the workspace holding a file of the same name.
    await fs.rm(path.join(world.folder, 'sub'), { recursive: true });
    await fs.symlink(path.join(world.folder, 'other'), path.join(world.folder, 'sub'));
    await assert.rejects(
      service.checkpoints.restore(1, () => Promise.resolve('overwrite')),
      /will not write.*symbolic link/,
    );
    assert.equal(await read('other/keep.txt'), 'precious\n', 'the other folder is untouched');
  });
});
