import assert from 'node:assert/strict';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

/** The user's side: one search over the whole session, also what left the context. */
describe('session service: the user searches the history', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'notes.txt': 'the build uses esbuild\n' })));
  afterEach(async () => world?.close());

  it('finds a message that compaction took out of the context, and its ref opens the message', async () => {
    const { service } = await world.open();
    world.server.script.push({ text: 'Noted: the linter runs before every commit.' });
    await service.turns.prompt('From now on, run the linter before committing (rule LINT-7).');
    for (let i = 0; i < 3; i++) {
      world.server.script.push({ text: `Answer ${i}: ${'words about the refactor '.repeat(40)}` });
      await service.turns.prompt(`Turn ${i}: carry on with part ${i} of the refactor.`);
    }
    world.server.script.push({ text: 'Summary: parts 0 to 2 of the refactor are done.' });
    await service.compactions.compact();
    assert.ok(!JSON.stringify(service.sessions.messages).includes('Noted: the linter'), 'the answer left the context');

    const { hits, total } = await service.search.searchHistory('the linter runs');
    assert.equal(total, 1);
    assert.equal(hits[0].role, 'assistant');
    const text = await service.search.readResult(hits[0].ref);
    assert.match(text, /^assistant, turn \d+\n\nNoted: the linter runs before every commit\.$/);
    assert.equal((await service.search.searchHistory('no such words anywhere')).total, 0);
    await assert.rejects(service.search.readResult('msg_99999'), /No message msg_99999/);
  });
});
