import assert from 'node:assert/strict';
import type { AgentEvent, CompactionChange } from '../../src/agent/events';
import { receiptPin } from '../../src/panel/receipt-view';
import { receiptMismatches, sentText as sent } from '../fixtures/compaction/receipt-check';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

/**
 * The compaction receipt through the session service: after a pass, which specifics of what it removed
 * the context still carries, by kind, with the missing ones named — equal to what the next request
 * actually carries; one missing item pinned is in the next request; the receipt is stored with the
 * compaction and comes back after a reopen.
 */
describe('session service: the compaction receipt', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'src/server.ts': 'export const port = 1;\n' })));
  afterEach(async () => world?.close());

  it('counts what the next request carries of what left, names what is missing, and a pin brings it back', async () => {
    const { service } = await world.open();
    const changes: CompactionChange[] = [];
    service.onDidEvent((e: AgentEvent) => void (e.type === 'compaction_end' && e.change && changes.push(e.change)));
    world.server.script.push(
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'src/config/ports.ts', content: 'export const PORT = 8443;\n' } }] },
      { toolCalls: [{ id: 'r1', name: 'run_command', arguments: { command: 'echo BUILD-OK' } }] },
      { toolCalls: [{ id: 'r2', name: 'run_command', arguments: { command: 'echo "TypeError: port is undefined" && exit 2' } }] },
      { text: `I changed src/legacy/adapter.ts as well and measured 1834 ms per request. ${'notes '.repeat(300)}` },
    );
    await service.turns.prompt(`Set the port to 8443 and never touch the migrations. ${'context '.repeat(300)}`);
    for (let i = 0; i < 3; i++) {
      world.server.script.push({ text: `Answer ${i}: ${'details '.repeat(400)}` });
      await service.turns.prompt(`Question ${i}: ${'context '.repeat(300)}`);
    }
    world.server.script.push({ text: '## Goal\nKeep going.' }); // a summarizer that names nothing
    assert.ok(await service.compactions.compact());
    const receipt = changes.at(-1)?.receipt;
    assert.ok(receipt, 'the pass has a receipt');
    const count = (kind: string) => receipt.counts.find((c) => c.kind === kind);
    assert.deepEqual(count('commands'), { kind: 'commands', kept: 2, total: 2 }, 'the ledger carries both commands');
    assert.ok(count('instructions') && count('instructions')!.kept === count('instructions')!.total, 'every instruction is carried');
    assert.ok(count('paths')!.total >= 2);
    const missing = receipt.missing.map((m) => `${m.kind}:${m.text}`);
    assert.ok(missing.includes('paths:src/legacy/adapter.ts'), `a path only the model's words named is missing: ${missing.join(', ')}`);
    assert.ok(missing.includes('numbers:1834'), 'and a number only its words had');

    // The figures are the next request's.
    world.server.script.push({ text: 'Next.' });
    await service.turns.prompt('What next?');
    const check = receiptMismatches(changes.at(-1)!, receipt, world.server.requests.at(-1)!);
    assert.deepEqual(check.mismatches, []);
    assert.ok(check.checked >= 8, `checked ${check.checked} specifics`);

    // One click on a missing item pins it: the very next request carries it.
    const item = receipt.missing.find((m) => m.text === 'src/legacy/adapter.ts')!;
    await service.pins.pin(receiptPin(item));
    await service.pins.pin(receiptPin(item)); // twice: pinned once
    assert.equal((await service.pins.pins()).length, 1);
    world.server.script.push({ text: 'Next again.' });
    await service.turns.prompt('And then?');
    assert.ok(sent(world.server.requests.at(-1)!).includes('A file from earlier work: src/legacy/adapter.ts'));

    // Stored with the compaction: a reopened session shows the same receipt.
    await service.storage.flush();
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    const stored = (await service.compactions.history()).compactions.at(-1);
    assert.deepEqual(stored?.view?.receipt, receipt);
    assert.deepEqual((await service.compactions.history()).pins, [receiptPin(item)], 'the reopened card knows the item is pinned');
    assert.ok(
      JSON.stringify(service.sessions.messages[0]).includes('A file from earlier work: src/legacy/adapter.ts'),
      'the pin is in the reopened view',
    );
  });
});
