import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { activateHeadroom, resetProviderSettings, useFakeProvider } from './helpers';

/**
 * The session's model in a real session host: a thinking level reaches the request inside the output
 * reservation, and a switch is measured against the new window at once.
 */
describe('session model choice in a real session', () => {
  let server: FakeProvider;
  const cfg = () => vscode.workspace.getConfiguration('headroom');

  before(async () => {
    server = await startFakeProvider({ window: 200_000 });
    await useFakeProvider(server.baseUrl);
    // Answer room below the model's output limit, so the thinking budget has to grow the reservation.
    await cfg().update(
      'models',
      { 'claude-sonnet-4-5': { maxOutput: 8_000 }, 'claude-haiku-4-5': { contextWindow: 50_000, maxOutput: 4_000 } },
      vscode.ConfigurationTarget.Global,
    );
  });

  after(async () => {
    const { host } = await activateHeadroom();
    await resetProviderSettings();
    await host.session.sessions.create();
    await server?.close();
  });

  it('sends the thinking budget inside max_tokens, and the usable input shrinks by it', async () => {
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
    const off = host.session.models.limits().effectiveWindow;
    await host.session.turns.setModel({ provider: 'anthropic', model: 'claude-sonnet-4-5', thinking: 'high' });
    const high = host.session.models.limits();
    assert.equal(off - high.effectiveWindow, 24_576);
    server.script.push({ text: 'Thought about it.' });
    await host.session.turns.prompt('Think, then answer.');
    const body = server.requests.at(-1)!.body as { max_tokens?: number; thinking?: { type: string; budget_tokens: number } };
    assert.equal(body.max_tokens, 8_000 + 24_576);
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 24_576 });
  });

  it('a switch mid-session is measured against the new window at once, and the session keeps it', async () => {
    const { host } = await activateHeadroom();
    assert.equal(host.session.turns.measure().contextWindow, 200_000);
    await host.session.turns.setModel({ provider: 'anthropic', model: 'claude-haiku-4-5', thinking: 'off' });
    assert.equal(host.session.turns.measure().contextWindow, 50_000);
    const id = host.session.sessions.state().sessionId;
    await host.session.sessions.create();
    assert.equal(host.session.models.choice().model, 'claude-sonnet-4-5', 'a new session starts on the settings default');
    await host.session.sessions.open(id);
    assert.equal(host.session.models.choice().model, 'claude-haiku-4-5');
    assert.equal(host.session.turns.measure().contextWindow, 50_000);
  });
});
