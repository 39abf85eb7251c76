import * as assert from 'node:assert/strict';
import { parseHostMessage, parseWebviewMessage, PROTOCOL_VERSION } from '../../src/protocol/messages';

const snapshot = {
  protocolVersion: PROTOCOL_VERSION,
  extensionVersion: '0.1.0',
  workspaceName: 'ws',
  storageAvailable: true,
  trusted: true,
  session: { id: 'ses_1', title: 'New session', messageCount: 0 },
  config: { provider: 'anthropic', model: 'claude-sonnet-4-5', hasApiKey: null },
};

describe('protocol: every message is validated', () => {
  it('accepts the webview/ready handshake', () => {
    const r = parseWebviewMessage({ type: 'webview/ready', protocolVersion: PROTOCOL_VERSION });
    assert.equal(r.ok, true);
  });

  it('accepts a session/snapshot from the host', () => {
    const r = parseHostMessage({ type: 'session/snapshot', snapshot });
    assert.ok(r.ok);
    assert.equal(r.message.type, 'session/snapshot');
  });

  for (const [what, raw, expected] of [
    ['an unknown type', { type: 'prompt/explode' }, /Invalid message "prompt\/explode"/],
    ['no type at all', { hello: 1 }, /Invalid message "\(no type\)"/],
    ['a wrong field type', { type: 'webview/ready', protocolVersion: 'one' }, /protocolVersion/],
    ['a non-object', 'webview/ready', /Invalid message/],
    ['null', null, /Invalid message/],
    ['an unknown command', { type: 'command/run', command: 'rm -rf' }, /command/],
    ['an oversized error report', { type: 'webview/error', message: 'x'.repeat(20_000) }, /message/],
  ] as const) {
    it(`rejects ${what} with an error naming the problem`, () => {
      const r = parseWebviewMessage(raw);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.error, expected);
    });
  }

  it('rejects a host snapshot with a negative message count', () => {
    const r = parseHostMessage({ type: 'session/snapshot', snapshot: { ...snapshot, session: { ...snapshot.session, messageCount: -1 } } });
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error, /session\.messageCount/);
  });
});
