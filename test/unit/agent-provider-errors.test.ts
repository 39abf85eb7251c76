import assert from 'node:assert/strict';
import { createHarness, danglingCalls, textOf, type Harness } from '../fixtures/agent/harness';

describe('agent loop: provider failures', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('ends the turn with the provider error as data, and the next turn works', async () => {
    h = await createHarness();
    h.server.script.push({ fault: 'auth' }, { text: 'back again' });
    const r = await h.turn('hello');
    assert.equal(r.reason, 'error');
    assert.equal(r.error?.kind, 'auth');
    const err = h.events.find((e) => e.type === 'error');
    assert.ok(err && err.type === 'error' && err.kind === 'auth' && err.message.length > 0);
    assert.deepEqual(
      h.view.map((m) => m.role),
      ['user'],
      'an empty failed answer does not join the context',
    );
    const r2 = await h.turn('again');
    assert.equal(r2.reason, 'done');
    assert.equal(textOf(h.view[h.view.length - 1]), 'back again');
  });

  it('reports retries and goes on when the retry succeeds', async () => {
    h = await createHarness();
    h.server.script.push({ fault: 'rate_limit', retryAfterSeconds: 1 }, { text: 'after waiting' });
    const r = await h.turn('hello');
    assert.equal(r.reason, 'done');
    const retry = h.events.find((e) => e.type === 'retry');
    assert.ok(retry && retry.type === 'retry' && retry.error.kind === 'rate_limit' && retry.delayMs === 1000);
  });

  it('keeps the partial answer of a broken stream', async () => {
    h = await createHarness();
    h.server.script.push({ fault: 'drop', partialText: 'Half of my ans' });
    const r = await h.turn('hello');
    assert.equal(r.reason, 'error');
    assert.equal(r.error?.kind, 'network');
    assert.equal(h.server.requests.length, 1, 'a stream that already showed text is not silently retried');
    const last = h.view[h.view.length - 1];
    assert.ok(last.role === 'assistant' && last.stopReason === 'error');
    assert.equal(textOf(last), 'Half of my ans');
    assert.deepEqual(danglingCalls(h.view), []);
  });
});
