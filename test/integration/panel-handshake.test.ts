import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { PROTOCOL_VERSION, REQUESTS, type HostToWebview } from '../../src/protocol/messages';
import { activateHeadroom, waitFor } from './helpers';

describe('the side panel in a real extension host', () => {
  it('registers the webview view: focusing it runs the real webview, whose ready gets a snapshot', async () => {
    const api = await activateHeadroom();
    const snapshot = waitFor(
      api.panel.onDidPost,
      (m: HostToWebview) => (m.type === 'session/snapshot' ? m.snapshot : undefined),
      45_000,
      'session/snapshot after the webview said ready',
    );
    // Hide then show so the webview (re)loads and sends webview/ready even if it was open already.
    await vscode.commands.executeCommand('workbench.view.explorer');
    await vscode.commands.executeCommand('headroom.focusPanel');
    const s = await snapshot;
    assert.equal(s.protocolVersion, PROTOCOL_VERSION);
    assert.equal(s.storageAvailable, true);
    assert.match(s.session.id, /^ses_/);
    assert.ok(['anthropic', 'openai', 'openai-compatible'].includes(s.config.provider));
  });

  it('rejects a malformed webview message with a logged, visible error', async () => {
    const api = await activateHeadroom();
    const error = waitFor(api.panel.onDidPost, (m: HostToWebview) => (m.type === 'host/error' ? m : undefined), 5_000, 'host/error');
    await api.panel.receive({ type: 'prompt/submit', text: 42 });
    const e = await error;
    assert.match(e.message, /could not accept/);
    assert.match(e.detail ?? '', /Invalid message "prompt\/submit"/);
  });

  it('rejects a webview of another protocol version', async () => {
    const api = await activateHeadroom();
    const error = waitFor(api.panel.onDidPost, (m: HostToWebview) => (m.type === 'host/error' ? m : undefined), 5_000, 'host/error');
    await api.panel.receive({ type: 'webview/ready', protocolVersion: 999 });
    assert.match((await error).message, /protocol v999/);
  });

  it('answers a webview request with a reply of its id, and a bad one with an error reply', async () => {
    const api = await activateHeadroom();
    const reply = (id: number) =>
      waitFor(api.panel.onDidPost, (m: HostToWebview) => (m.type === 'reply' && m.id === id ? m : undefined), 10_000, `reply ${id}`);
    const listed = reply(41);
    await api.panel.receive({ type: 'request', id: 41, method: 'session/list', params: {} });
    const answer = REQUESTS['session/list'][1].parse((await listed).result);
    assert.ok(answer.history.sessions.length > 0, 'the sessions of this workspace');
    const refused = reply(42);
    await api.panel.receive({ type: 'request', id: 42, method: 'transcript/older', params: { beforeId: '' } });
    const bad = await refused;
    assert.equal(bad.result, undefined);
    assert.match(bad.error ?? '', /Invalid transcript\/older request/);
  });
});
