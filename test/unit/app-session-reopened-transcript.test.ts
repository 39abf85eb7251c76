import assert from 'node:assert/strict';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { changesItem } from '../../src/panel/turn-changes';
import type { ChatItem } from '../../src/protocol/view-models';
import type { ApprovalDecision, ApprovalPort } from '../../src/tools/ports';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

const MODEL = 'qwen2.5-coder-7b-instruct';

/** The chat as a user reads it: every item without the panel's own ids (live and reopened name items differently). */
function readable(items: readonly ChatItem[]): unknown[] {
  return items.map((item) => {
    const { id: _id, ...rest } = item;
    // How long a tool ran is timed live only (nothing of it is stored).
    if (rest.kind === 'tool') delete (rest as { durationMs?: number }).durationMs;
    return rest;
  });
}

/**
 * The chat a session showed while it ran is the chat it shows when reopened: against a server that
 * names every call `call_0` (each card keeps its own call, none is taken for another), with the
 * approvals the user answered, the files a turn changed, and a compaction with the same figures.
 */
describe('session service: the reopened transcript is what happened', function () {
  this.timeout(240_000);
  let world: FakeWorld | undefined;
  afterEach(async () => world?.close());

  it('tool cards, approvals, changes and the compaction card come back as they were shown', async () => {
    world = await createFakeWorld(
      { 'notes.txt': 'alpha\n' },
      { server: { flavour: 'llamacpp', windows: { [MODEL]: 32_768 } }, provider: { provider: 'openai-compatible', model: MODEL } },
    );
    // The panel as the host feeds it: the loop's events, each approval asked and answered, each turn's changes.
    const live = new ChatPresenter(() => undefined);
    const answers: ApprovalDecision[] = [
      { approved: true },
      { approved: true, forSession: true },
      { approved: false, reason: 'not that file' },
    ];
    let asked = 0;
    const approvals: ApprovalPort = {
      request(request) {
        const id = `apr_${++asked}`;
        live.showApproval(id, request);
        const decision = answers.shift() ?? { approved: false };
        live.settleApproval(id, decision);
        return Promise.resolve(decision);
      },
    };
    const { service } = await world.open({ approvals });
    live.setUndoAvailable(service.compactions.canUndo);
    service.onDidEvent((e) => {
      live.handle(e);
      const changes = e.type === 'turn_end' ? service.checkpoints.turnChanges() : undefined;
      if (changes) live.put(changesItem(`ch${changes.turn}`, changes));
    });

    const server = world.server;
    server.script.push(
      { text: 'Running it.', toolCalls: [{ id: 'call_0', name: 'run_command', arguments: { command: 'echo checked' } }] },
      { text: 'The command printed checked.' },
    );
    await service.turns.prompt('Run the check.');
    server.script.push(
      { toolCalls: [{ id: 'call_0', name: 'write_file', arguments: { path: 'report.txt', content: 'all good\n' } }] },
      { text: 'Wrote report.txt.' },
    );
    await service.turns.prompt('Write a report.');
    server.script.push(
      {
        toolCalls: [
          { id: 'call_0', name: 'read_file', arguments: { path: 'notes.txt' } },
          { id: 'call_0', name: 'write_file', arguments: { path: 'notes.txt', content: 'beta\n' } },
        ],
      },
      { text: 'Left notes.txt as it was.' },
    );
    await service.turns.prompt('Read the notes and rewrite them.');
    server.script.push({ text: 'Summary: a check ran, report.txt was written, notes.txt was kept.' });
    const report = await service.compactions.compact();
    assert.ok(report, 'the session compacted');
    live.handle({ type: 'compaction', report });
    server.script.push({ text: 'All done.' });
    await service.turns.prompt('Anything left?');
    await service.storage.flush();

    // Reopened: another session first, then this one, as History does; every older page read.
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    const reopened = new ChatPresenter(() => undefined);
    reopened.setUndoAvailable(service.compactions.canUndo);
    live.setUndoAvailable(service.compactions.canUndo);
    reopened.load(service.sessions.messages, await service.compactions.history());
    for (let i = 0; reopened.view().hasOlder && i < 50; i++) await reopened.olderPage(reopened.view().items[0].id);

    const liveItems = live.view().items;
    const tools = liveItems.flatMap((i) => (i.kind === 'tool' ? [`${i.name} ${i.summary} ${i.status}`] : []));
    assert.deepEqual(tools, [
      'run_command echo checked done',
      'write_file report.txt done',
      'read_file notes.txt done',
      'write_file notes.txt rejected',
    ]);
    assert.deepEqual(
      liveItems.flatMap((i) => (i.kind === 'approval' ? [`${i.request.kind} ${i.state}`] : [])),
      ['command approved', 'edit approved', 'edit rejected'],
    );
    assert.ok(liveItems.some((i) => i.kind === 'changes'));
    assert.ok(liveItems.some((i) => i.kind === 'compaction'));
    assert.deepEqual(readable(reopened.view().items), readable(liveItems));
  });
});
