import * as assert from 'node:assert/strict';
import { parseHostMessage, parseWebviewMessage, PROTOCOL_VERSION, WebviewToHost } from '../../src/protocol/messages';

const snapshot = {
  protocolVersion: PROTOCOL_VERSION,
  extensionVersion: '0.1.0',
  workspaceName: 'ws',
  storageAvailable: true,
  trusted: true,
  session: { id: 'ses_1', title: 'New session', messageCount: 0 },
  config: { provider: 'anthropic', providers: [{ id: 'anthropic', label: 'Anthropic' }], model: 'claude-sonnet-4-5', hasApiKey: null },
};

const meter = {
  model: 'm',
  window: 200_000,
  effectiveWindow: 168_000,
  used: 83_200,
  percent: 50,
  segments: [{ key: 'messages', label: 'Messages', tokens: 83_200, fraction: 0.495, title: 'Messages: 83.2k tokens (50 %)' }],
  output: { tokens: 32_000, title: 'Reserved for the answer: 32k tokens, outside the 168k' },
  free: { tokens: 84_800, fraction: 0.505, title: 'Free: 84.8k tokens' },
  markers: { compact: 0.95, block: 0.98 },
  usedLabel: '83.2k / 168k (50 %)',
  shareLabel: '50 % of the 168k this model can take',
  confirmed: false,
  accuracy: 'estimated ±5 %',
  cacheLabel: null,
  deferredLabel: null,
  freed: null,
  status: 'ok',
  pausedReason: null,
};

/** One valid example of every webview → host message type. */
const EVERY_WEBVIEW_MESSAGE: WebviewToHost[] = [
  { type: 'webview/ready', protocolVersion: PROTOCOL_VERSION },
  { type: 'webview/error', message: 'x' },
  { type: 'prompt/submit', text: 'hello' },
  { type: 'prompt/stop' },
  { type: 'context/compact' },
  { type: 'context/compact', focus: 'the parser' },
  { type: 'context/clear' },
  { type: 'session/new' },
  { type: 'request', id: 1, method: 'session/list', params: {} },
  { type: 'session/open', id: 'ses_1' },
  { type: 'session/rename', id: 'ses_1', title: 'T' },
  { type: 'session/delete', id: 'ses_1' },
  { type: 'snapshot/save' },
  { type: 'snapshot/save', name: 'before refactor' },
  { type: 'snapshot/restore', id: 'snap_1' },
  { type: 'compaction/undo' },
  { type: 'approval/respond', id: 'ap1', approved: true },
  { type: 'approval/diff', id: 'ap1' },
  { type: 'result/open', refId: 'res_1' },
  { type: 'config/update', provider: 'openai-compatible', baseUrl: 'http://localhost:11434/v1' },
  { type: 'config/update', provider: 'vscode-lm' },
  { type: 'command/run', command: 'setApiKey' },
];

describe('protocol: every message is validated', () => {
  for (const m of EVERY_WEBVIEW_MESSAGE) {
    it(`accepts ${m.type} ${JSON.stringify(m).slice(0, 60)}`, () => {
      const r = parseWebviewMessage(m);
      assert.ok(r.ok, r.ok ? '' : r.error);
      assert.deepEqual(r.message, m);
    });
  }

  it('accepts a session/snapshot from the host, with and without a transcript and meter', () => {
    assert.ok(parseHostMessage({ type: 'session/snapshot', snapshot }).ok);
    const full = parseHostMessage({
      type: 'session/snapshot',
      snapshot: { ...snapshot, items: [{ kind: 'user', id: 'u1', text: 'hi' }], meter, running: true },
    });
    assert.ok(full.ok, full.ok ? '' : full.error);
  });

  it('accepts chat ops of every kind, the meter, history and turn state', () => {
    for (const m of [
      {
        type: 'chat/ops',
        ops: [
          { op: 'append', item: { kind: 'assistant', id: 'a1', text: '', streaming: true } },
          { op: 'delta', id: 'a1', field: 'text', text: 'Hi' },
          { op: 'remove', id: 'a1' },
        ],
      },
      {
        type: 'chat/ops',
        ops: [
          {
            op: 'update',
            item: {
              kind: 'tool',
              id: 'c1',
              name: 'read_file',
              summary: 'a.ts',
              args: '{}',
              status: 'done',
              output: 'x',
              durationMs: 12,
              refId: 'res_1',
            },
          },
        ],
      },
      {
        type: 'chat/ops',
        ops: [
          {
            op: 'append',
            item: {
              kind: 'approval',
              id: 'ap1',
              toolCallId: 'c1',
              toolName: 'edit_file',
              request: { kind: 'edit', path: 'a.ts', isNew: false, added: 2, removed: 1 },
              state: 'pending',
            },
          },
        ],
      },
      {
        type: 'chat/ops',
        ops: [{ op: 'append', item: { kind: 'notice', id: 'r1', level: 'warning', text: 'Rate limited', retryAt: 1, attempt: 2 } }],
      },
      { type: 'context/usage', meter },
      { type: 'turn/state', running: false },
      { type: 'session/info', session: { id: 'ses_1', title: 'Parser fixes', messageCount: 12 } },
      {
        type: 'history/list',
        history: {
          sessions: [{ id: 's', title: 't', date: 'd', messageCount: 1, size: '1 KB', current: true }],
          timeline: [
            {
              id: 'cp2',
              kind: 'checkpoint',
              title: 'Before “fix it”',
              date: 'd',
              detail: 'Turn 2 changed 1 file: a.ts',
              restores: 'Restore puts a.ts back…',
              action: { type: 'checkpoint/restore', turn: 2 },
            },
          ],
        },
      },
    ]) {
      const r = parseHostMessage(m);
      assert.ok(r.ok, r.ok ? '' : r.error);
    }
  });

  for (const [what, raw, expected] of [
    ['an unknown type', { type: 'prompt/explode' }, /Invalid message "prompt\/explode"/],
    ['no type at all', { hello: 1 }, /Invalid message "\(no type\)"/],
    ['a wrong field type', { type: 'webview/ready', protocolVersion: 'one' }, /protocolVersion/],
    ['a non-object', 'webview/ready', /Invalid message/],
    ['null', null, /Invalid message/],
    ['an unknown command', { type: 'command/run', command: 'rm -rf' }, /command/],
    ['an oversized error report', { type: 'webview/error', message: 'x'.repeat(20_000) }, /message/],
    ['an empty prompt', { type: 'prompt/submit', text: ' \n ' }, /text/],
    ['an empty session title', { type: 'session/rename', id: 's', title: '' }, /title/],
    ['an approval without a decision', { type: 'approval/respond', id: 'ap1' }, /approved/],
    ['an unknown provider', { type: 'config/update', provider: 'gemini' }, /provider/],
    ['a result without a ref id', { type: 'result/open', refId: '' }, /refId/],
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

  it('rejects a chat item of an unknown kind and a meter with a bad status', () => {
    const item = parseHostMessage({ type: 'chat/ops', ops: [{ op: 'append', item: { kind: 'html', id: 'x', text: '<b>' } }] });
    assert.equal(item.ok, false);
    const m = parseHostMessage({ type: 'context/usage', meter: { ...meter, status: 'panic' } });
    assert.equal(m.ok, false);
    if (!m.ok) assert.match(m.error, /meter\.status/);
  });
});
