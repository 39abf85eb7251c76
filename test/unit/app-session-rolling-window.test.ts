import assert from 'node:assert/strict';
import { isHistoryMessage } from '../../src/context/compaction';
import { createFakeWorld, talk, type FakeWorld } from '../fixtures/app/fake-environment';

const SUMMARY = 'Summary: SUMMARY-ROLL the parser was ported.';
const PIN = 'PIN-ROLL: the public API stays at v2';

/**
 * The rolling window through the session service: the history message a compaction put first is the
 * window's floor. It is older than any window by construction, and it carries the summary, the pins,
 * the user's instructions and the work ledger: cutting it would drop all of that without a word.
 */
describe('session service: the rolling window keeps the history message', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'notes.txt': 'the build uses esbuild\n' })));
  afterEach(async () => world?.close());

  async function compacted() {
    const opened = await world.open();
    const { service } = opened;
    world.server.script.push({ toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'Read it.' });
    await service.turns.prompt('Read notes.txt, and from now on never touch the migrations.');
    await talk(world, service, 4);
    await service.pins.pin(PIN);
    world.server.script.push({ text: SUMMARY });
    assert.ok(await service.compactions.compact(), 'a compaction ran');
    assert.ok(isHistoryMessage(service.sessions.messages[0]));
    return opened;
  }

  const carriesHistory = (body: string) => {
    for (const s of ['SUMMARY-ROLL', 'PIN-ROLL', 'never touch the migrations', 'notes.txt — read'])
      assert.ok(body.includes(s), `the request carries ${s}`);
  };

  it('live: a window shorter than the session keeps the summary, pins, instructions and ledger in the next request', async () => {
    const { service, env } = await compacted();
    env.settingsNow.rollingWindowMs = 1;
    await new Promise((r) => setTimeout(r, 20));
    world.server.script.push({ text: 'Next answer.' });
    await service.turns.prompt('What next?');
    const request = world.server.requests.at(-1)!;
    const body = JSON.stringify(request.body.messages);
    carriesHistory(body);
    assert.ok(!body.includes('Instruction 3:'), 'the kept turns older than the window did leave the context');
    assert.ok(isHistoryMessage(service.sessions.messages[0]), 'the live view still starts with it');
  });

  it('on reopen: the stored view keeps the history message when the window cut everything else', async () => {
    const { service, env } = await compacted();
    await service.storage.flush();
    const id = service.sessions.state().sessionId;
    env.settingsNow.rollingWindowMs = 1;
    await new Promise((r) => setTimeout(r, 20));
    await service.sessions.create();
    await service.sessions.open(id);
    assert.ok(isHistoryMessage(service.sessions.messages[0]), 'the reopened view starts with the history message');
    world.server.script.push({ text: 'Next answer.' });
    await service.turns.prompt('What next?');
    carriesHistory(JSON.stringify(world.server.requests.at(-1)!.body.messages));
  });
});
