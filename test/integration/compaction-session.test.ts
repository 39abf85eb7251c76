import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentEvent } from '../../src/agent/events';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { activateHeadroom, resetProviderSettings, useFakeProvider } from './helpers';

/**
 * Compaction through the real session host in a real extension host: the chain summarizes through the
 * fake provider, the store keeps everything, and undo / resume / clear / a smaller model behave.
 */
describe('compaction in a real session', () => {
  let server: FakeProvider;
  const cfg = () => vscode.workspace.getConfiguration('headroom');

  before(async () => {
    server = await startFakeProvider({ window: 200_000 });
    await useFakeProvider(server.baseUrl);
    const api = await activateHeadroom();
    await api.host.session.sessions.create();
    for (let i = 0; i < 6; i++) {
      server.script.push({ text: `Answer ${i}: ${'details '.repeat(400)}` });
      await api.host.session.turns.prompt(`Instruction ${i}: always keep file names in lowercase. ${'context '.repeat(300)}`);
    }
  });

  after(async () => {
    await resetProviderSettings();
    await server?.close();
  });

  it('compacts by hand, keeps every instruction, and undo restores the exact view', async () => {
    const { host } = await activateHeadroom();
    const before = JSON.stringify(host.session.sessions.messages);
    server.script.push({ text: 'Summary: the user wants lowercase file names; six questions were answered.' });
    const report = await host.session.compactions.compact('keep the naming rule');
    assert.ok(report, 'a compaction ran');
    assert.ok(report.afterTokens < report.beforeTokens, `freed tokens (${report.beforeTokens} → ${report.afterTokens})`);
    const after = JSON.stringify(host.session.sessions.messages);
    for (let i = 0; i < 6; i++)
      assert.ok(after.includes(`Instruction ${i}: always keep file names in lowercase`), `instruction ${i} survives`);
    assert.match(after, /not a new instruction/);

    const history = await host.session.sessions.history();
    assert.equal(history.canUndoCompaction, true);
    await host.session.compactions.undo();
    assert.equal(JSON.stringify(host.session.sessions.messages), before, 'undo restores the view exactly');
  });

  it('resumes a compacted session from its snapshot: reopening gives the same view', async () => {
    const { host } = await activateHeadroom();
    server.script.push({ text: 'Summary again.' });
    await host.session.compactions.compact();
    const view = JSON.stringify(host.session.sessions.messages);
    const id = host.session.sessions.state().sessionId;
    await host.session.storage.flush();
    await host.session.sessions.create();
    await host.session.sessions.open(id);
    assert.equal(JSON.stringify(host.session.sessions.messages), view);
  });

  it('clear empties the context but deletes no stored message', async () => {
    const { host } = await activateHeadroom();
    const id = host.session.sessions.state().sessionId;
    const countBefore = (await host.session.sessions.history()).sessions.find((s) => s.id === id)!.messageCount;
    await host.session.sessions.clear();
    assert.equal(host.session.sessions.messages.length, 0);
    const countAfter = (await host.session.sessions.history()).sessions.find((s) => s.id === id)!.messageCount;
    assert.equal(countAfter, countBefore);
  });

  it('a pin survives compaction verbatim, and unpin removes it', async () => {
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
    for (let i = 0; i < 4; i++) {
      server.script.push({ text: `Reply ${i}: ${'details '.repeat(400)}` });
      await host.session.turns.prompt(`Step ${i}: ${'context '.repeat(300)}`);
    }
    await host.session.pins.pin('Never commit generated files under dist/.');
    server.script.push({ text: 'Summary of the steps.' });
    const report = await host.session.compactions.compact();
    assert.ok(report, 'a compaction ran');
    assert.match(JSON.stringify(host.session.sessions.messages), /Never commit generated files under dist\//);
    const pins = await host.session.pins.pins();
    assert.deepEqual(
      pins.map((p) => p.text),
      ['Never commit generated files under dist/.'],
    );
    await host.session.pins.unpin(pins[0].id);
    assert.deepEqual(await host.session.pins.pins(), []);
    await assert.rejects(host.session.pins.pin('   '), /needs some text/);
  });

  it('switching to a much smaller window compacts before sending, and the request fits', async () => {
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
    for (let i = 0; i < 4; i++) {
      server.script.push({ text: `Long answer ${i}: ${'words '.repeat(3000)}` });
      await host.session.turns.prompt(`Question ${i}`);
    }
    await cfg().update('models', { 'claude-sonnet-4-5': { contextWindow: 8_000, maxOutput: 1_000 } }, vscode.ConfigurationTarget.Global);
    const events: AgentEvent[] = [];
    const sub = host.session.onDidEvent((e) => events.push(e));
    const sent = server.requests.length;
    server.script.push({ text: 'Short summary.' }, { text: 'Fits now.' });
    await host.session.turns.prompt('And now?');
    sub.dispose();
    const requests = server.requests.slice(sent);
    assert.ok(
      events.some((e) => e.type === 'compaction'),
      'a compaction ran before the request',
    );
    assert.ok(
      requests.every((r) => r.status === 200),
      `no request was refused: ${requests.map((r) => `${r.status}/${r.inputTokens}`).join(', ')}`,
    );
    const chat = requests.at(-1)!;
    assert.ok(chat.inputTokens <= 8_000 - 1_000, `the request fits the smaller window (${chat.inputTokens} tokens)`);
    await cfg().update('models', undefined, vscode.ConfigurationTarget.Global);
  });
});
