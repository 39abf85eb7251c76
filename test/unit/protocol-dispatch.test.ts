import * as assert from 'node:assert/strict';
import { createHostDispatcher, createWebviewDispatcher, HostHandlers, WebviewHandlers } from '../../src/protocol/dispatch';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages';

/** A handler map where every webview message type is recorded; `command/run focusPanel` throws. */
function recorder() {
  const handled: WebviewToHost[] = [];
  const invalid: string[] = [];
  const failures: Array<{ type: string; error: unknown }> = [];
  const record = (m: WebviewToHost) => void handled.push(m);
  const handlers: WebviewHandlers = {
    'webview/ready': record,
    'webview/error': record,
    request: record,
    'prompt/submit': record,
    'prompt/resend': record,
    'prompt/retry': record,
    'mention/open': record,
    'prompt/stop': record,
    'context/compact': record,
    'context/clear': record,
    'clear/undo': record,
    'session/new': record,
    'session/open': record,
    'session/rename': record,
    'session/delete': record,
    'snapshot/save': record,
    'snapshot/restore': record,
    'compaction/undo': record,
    'receipt/pin': record,
    'compaction/cancel': record,
    'approval/respond': record,
    'approval/diff': record,
    'result/open': record,
    'checkpoint/diff': record,
    'checkpoint/restore': record,
    'config/update': record,
    'code/copy': record,
    'code/insert': record,
    'command/run': (m) => {
      if (m.command === 'focusPanel') return Promise.reject(new Error('boom'));
      handled.push(m);
      return Promise.resolve();
    },
  };
  const dispatch = createWebviewDispatcher(
    handlers,
    (e) => invalid.push(e),
    (error, type) => failures.push({ type, error }),
  );
  return { dispatch, handled, invalid, failures };
}

describe('protocol: the host dispatcher', () => {
  it('routes a valid message to its handler only', async () => {
    const r = recorder();
    await r.dispatch({ type: 'webview/ready', protocolVersion: 2 });
    assert.deepEqual(r.handled, [{ type: 'webview/ready', protocolVersion: 2 }]);
    assert.deepEqual(r.invalid, []);
  });

  it('routes each panel intent with its validated payload', async () => {
    const r = recorder();
    await r.dispatch({ type: 'context/compact', focus: 'keep the parser work' });
    await r.dispatch({ type: 'session/rename', id: 'ses_1', title: '  Parser fixes  ' });
    await r.dispatch({ type: 'approval/respond', id: 'ap1-call_1', approved: false, reason: 'not that file' });
    assert.deepEqual(r.handled, [
      { type: 'context/compact', focus: 'keep the parser work' },
      { type: 'session/rename', id: 'ses_1', title: 'Parser fixes' },
      { type: 'approval/respond', id: 'ap1-call_1', approved: false, reason: 'not that file' },
    ]);
  });

  it('never lets a malformed message reach a handler, and reports it', async () => {
    const r = recorder();
    await r.dispatch({ type: 'webview/ready' });
    await r.dispatch({ type: 'command/run', command: 'deleteEverything' });
    await r.dispatch({ type: 'prompt/submit', text: '   ' });
    await r.dispatch(undefined);
    assert.deepEqual(r.handled, []);
    assert.equal(r.invalid.length, 4);
    assert.match(r.invalid[0], /protocolVersion/);
    assert.match(r.invalid[2], /text/);
  });

  it('reports a handler that throws instead of throwing itself', async () => {
    const r = recorder();
    await r.dispatch({ type: 'command/run', command: 'focusPanel' });
    assert.equal(r.failures.length, 1);
    assert.equal(r.failures[0].type, 'command/run');
    assert.match(String(r.failures[0].error), /boom/);
  });
});

describe('protocol: the webview dispatcher', () => {
  function webviewRecorder() {
    const seen: HostToWebview[] = [];
    const invalid: string[] = [];
    const failures: string[] = [];
    const record = (m: HostToWebview) => void seen.push(m);
    const handlers: HostHandlers = {
      'session/snapshot': record,
      reply: record,
      'chat/ops': record,
      'turn/state': (m) => {
        if (m.running) throw new Error('render failed');
        seen.push(m);
      },
      'session/info': record,
      'context/usage': record,
      'history/list': record,
      'host/error': record,
      'ledger/update': record,
      'host/ok': record,
      'mention/add': record,
      'prompt/fill': record,
    };
    const dispatch = createHostDispatcher(
      handlers,
      (e) => invalid.push(e),
      (_e, type) => failures.push(type),
    );
    return { dispatch, seen, invalid, failures };
  }

  it('routes valid host messages and rejects invalid ones before any renderer sees them', async () => {
    const r = webviewRecorder();
    await r.dispatch({ type: 'chat/ops', ops: [{ op: 'delta', id: 'a1', field: 'text', text: 'hi' }] });
    await r.dispatch({ type: 'chat/ops', ops: [{ op: 'delta', id: 'a1', field: 'html', text: '<script>' }] });
    await r.dispatch({ type: 'turn/state', running: 'yes' });
    assert.equal(r.seen.length, 1);
    assert.equal(r.invalid.length, 2);
    assert.match(r.invalid[0], /ops\.0\.field/);
  });

  it('reports a renderer that throws', async () => {
    const r = webviewRecorder();
    await r.dispatch({ type: 'turn/state', running: true });
    assert.deepEqual(r.failures, ['turn/state']);
  });
});
