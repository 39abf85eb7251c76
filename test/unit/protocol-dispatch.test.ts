import * as assert from 'node:assert/strict';
import { createWebviewDispatcher, WebviewHandlers } from '../../src/protocol/dispatch';
import type { WebviewToHost } from '../../src/protocol/messages';

function recorder() {
  const handled: WebviewToHost[] = [];
  const invalid: string[] = [];
  const failures: Array<{ type: string; error: unknown }> = [];
  const handlers: WebviewHandlers = {
    'webview/ready': (m) => void handled.push(m),
    'webview/error': (m) => void handled.push(m),
    'command/run': async (m) => {
      if (m.command === 'focusPanel') throw new Error('boom');
      handled.push(m);
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
    await r.dispatch({ type: 'webview/ready', protocolVersion: 1 });
    assert.deepEqual(r.handled, [{ type: 'webview/ready', protocolVersion: 1 }]);
    assert.deepEqual(r.invalid, []);
  });

  it('never lets a malformed message reach a handler, and reports it', async () => {
    const r = recorder();
    await r.dispatch({ type: 'webview/ready' });
    await r.dispatch({ type: 'command/run', command: 'deleteEverything' });
    await r.dispatch(undefined);
    assert.deepEqual(r.handled, []);
    assert.equal(r.invalid.length, 3);
    assert.match(r.invalid[0], /protocolVersion/);
  });

  it('reports a handler that throws instead of throwing itself', async () => {
    const r = recorder();
    await r.dispatch({ type: 'command/run', command: 'focusPanel' });
    assert.equal(r.failures.length, 1);
    assert.equal(r.failures[0].type, 'command/run');
    assert.match(String(r.failures[0].error), /boom/);
  });
});
