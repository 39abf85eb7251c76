import * as assert from 'node:assert/strict';
import { FLUSH_INTERVAL_MS, MessageBatcher, type BatcherClock } from '../../src/panel/message-batcher';
import type { HostToWebview } from '../../src/protocol/messages';
import { budget } from './panel-factories';
import { meterFromBudget } from '../../src/panel/meter-view';

/** A manual clock: timers fire only when the test advances time. */
function fakeClock() {
  let now = 0;
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let seq = 0;
  const clock: BatcherClock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = ++seq;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (h) => {
      timers = timers.filter((t) => t.id !== h);
    },
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const next = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      timers = timers.filter((t) => t !== next);
      now = next.at;
      next.fn();
    }
    now = end;
  };
  return { clock, advance };
}

const delta = (text: string, id = 'a1'): HostToWebview => ({ type: 'chat/ops', ops: [{ op: 'delta', id, field: 'text', text }] });
const usage = (messages: number): HostToWebview => ({ type: 'context/usage', meter: meterFromBudget(budget({ messages })) });

describe('panel: host messages are batched to at most 30 posts a second', () => {
  it('merges a burst of text deltas into one op and posts it once', () => {
    const { clock, advance } = fakeClock();
    const posted: HostToWebview[] = [];
    const b = new MessageBatcher((m) => posted.push(m), clock);
    for (const t of ['a', 'b', 'c']) b.enqueue(delta(t));
    assert.equal(posted.length, 0);
    advance(0);
    assert.deepEqual(posted, [{ type: 'chat/ops', ops: [{ op: 'delta', id: 'a1', field: 'text', text: 'abc' }] }]);
  });

  it('never flushes more than once per interval while text streams', () => {
    const { clock, advance } = fakeClock();
    const flushTimes: number[] = [];
    const b = new MessageBatcher(() => flushTimes.push(clock.now()), clock);
    for (let ms = 0; ms < 1_000; ms++) {
      b.enqueue(delta('x'));
      advance(1);
    }
    advance(100);
    const distinct = [...new Set(flushTimes)];
    assert.ok(distinct.length <= Math.ceil(1_000 / FLUSH_INTERVAL_MS) + 1, `${distinct.length} flushes in 1 s`);
    for (let i = 1; i < distinct.length; i++) assert.ok(distinct[i] - distinct[i - 1] >= FLUSH_INTERVAL_MS);
  });

  it('keeps order across kinds, merges ops of different items, and keeps only the latest meter', () => {
    const { clock, advance } = fakeClock();
    const posted: HostToWebview[] = [];
    const b = new MessageBatcher((m) => posted.push(m), clock);
    b.enqueue({ type: 'turn/state', running: true });
    b.enqueue(usage(1_000));
    b.enqueue(delta('a'));
    b.enqueue(delta('b', 'a2'));
    b.enqueue(delta('c', 'a2'));
    b.enqueue(usage(2_000));
    advance(FLUSH_INTERVAL_MS);
    assert.deepEqual(
      posted.map((m) => m.type),
      ['turn/state', 'chat/ops', 'context/usage'],
    );
    assert.deepEqual(posted[1].type === 'chat/ops' && posted[1].ops.map((o) => (o.op === 'delta' ? `${o.id}:${o.text}` : o.op)), [
      'a1:a',
      'a2:bc',
    ]);
    assert.equal(posted[2].type === 'context/usage' && posted[2].meter.used, 2_000);
  });

  it('flushes on demand and discards what a snapshot replaces', () => {
    const { clock, advance } = fakeClock();
    const posted: HostToWebview[] = [];
    const b = new MessageBatcher((m) => posted.push(m), clock);
    b.enqueue(delta('a'));
    b.flush();
    assert.equal(posted.length, 1);
    b.enqueue(delta('b'));
    b.discard();
    advance(1_000);
    assert.equal(posted.length, 1);
    assert.equal(b.pending, 0);
  });

  it('survives a sink that throws', () => {
    const { clock, advance } = fakeClock();
    const b = new MessageBatcher(() => {
      throw new Error('webview gone');
    }, clock);
    b.enqueue(delta('a'));
    assert.doesNotThrow(() => advance(100));
  });
});
