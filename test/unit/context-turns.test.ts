import assert from 'node:assert/strict';
import { historyMessage } from '../../src/context/compaction';
import type { Message } from '../../src/providers/types';
import { boundaryForKeepTokens, findSafeBoundary, parseTurnBoundaries, safeCuts, selectWindow } from '../../src/context/turns';
import { assistant, randomHistory, seeded, toolResult, user } from '../fixtures/context/factories';

/** True when the cut keeps every tool call together with its result. */
function keepsPairs(messages: Message[], cut: number): boolean {
  const callIndex = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === 'assistant') for (const p of m.content) if (p.type === 'toolCall') callIndex.set(p.id, i);
  });
  return messages.every((m, r) => {
    if (m.role !== 'toolResult') return true;
    const c = callIndex.get(m.toolCallId);
    return c === undefined || c > r || c < cut === r < cut;
  });
}

describe('context turns: boundaries', () => {
  it('parses turn starts at user messages', () => {
    const h = [user('a'), assistant('x', [{ id: '1' }]), toolResult('1', 'r'), assistant('y'), user('b'), assistant('z')];
    assert.deepEqual(parseTurnBoundaries(h), [0, 4]);
  });

  it('snaps a target to the nearest turn start at or before it, else after it', () => {
    const h = [user('a'), assistant('x', [{ id: '1' }]), toolResult('1', 'r'), assistant('y'), user('b'), assistant('z')];
    assert.equal(findSafeBoundary(h, 3), 0);
    assert.equal(findSafeBoundary(h, 5), 4);
    assert.equal(findSafeBoundary(h, 3, { direction: 'up' }), 4);
    assert.equal(findSafeBoundary(h, 99), 4);
  });

  it('falls back to a safe non-turn cut when there is no turn start, never between a call and its result', () => {
    const h = [assistant('', [{ id: '1' }]), toolResult('1', 'r'), assistant('', [{ id: '2' }]), toolResult('2', 'r')];
    assert.deepEqual(safeCuts(h), [true, false, true, false, true]);
    assert.equal(findSafeBoundary(h, 3), 2);
    assert.equal(findSafeBoundary(h, 3, { direction: 'up' }), 4);
    assert.equal(findSafeBoundary(h, 1), 0);
  });

  it('never splits a tool pair on randomized histories, clean or messy', () => {
    const rnd = seeded(1);
    for (let i = 0; i < 300; i++) {
      const h = randomHistory(rnd, 1 + Math.floor(rnd() * 8), i % 2 === 1);
      for (let k = 0; k < 5; k++) {
        const target = Math.floor(rnd() * (h.length + 1));
        for (const direction of ['down', 'up'] as const) {
          const cut = findSafeBoundary(h, target, { direction });
          assert.ok(cut >= 0 && cut <= h.length);
          assert.ok(keepsPairs(h, cut), `history ${i}, target ${target}, cut ${cut}`);
        }
      }
      const tokens = h.map(() => Math.floor(rnd() * 500));
      const cut = boundaryForKeepTokens(h, tokens, Math.floor(rnd() * 3000));
      assert.ok(keepsPairs(h, cut));
    }
  });

  it('chooses a cut by tokens: the largest tail that fits, snapped down to a turn start', () => {
    const h = [user('a'), assistant('b'), user('c'), assistant('d'), user('e'), assistant('f')];
    assert.equal(boundaryForKeepTokens(h, [10, 10, 10, 10, 10, 10], 25), 4);
    assert.equal(boundaryForKeepTokens(h, [10, 10, 10, 10, 10, 10], 35), 2);
    assert.equal(boundaryForKeepTokens(h, [10, 10, 10, 10, 10, 10], 1000), 0);
    // Nothing fits: the cut still snaps down to the last turn start, so the latest turn stays verbatim.
    assert.equal(boundaryForKeepTokens(h, [10, 10, 10, 10, 10, 10], 5), 4);
  });
});

describe('context turns: rolling window', () => {
  const h = [user('old', 100), assistant('x', [{ id: '1' }], 200), toolResult('1', 'r', 300), user('new', 400), assistant('y', [], 500)];

  it('keeps everything without a clear or a window', () => {
    assert.equal(selectWindow(h, { now: 1000 }).messages.length, 5);
  });
  it('keeps messages after the last clear', () => {
    const s = selectWindow(h, { lastClearAt: 350, now: 1000 });
    assert.deepEqual(
      s.messages.map((m) => m.timestamp),
      [400, 500],
    );
    assert.equal(s.startIndex, 3);
  });
  it('uses max(last clear, now − window)', () => {
    assert.equal(selectWindow(h, { lastClearAt: 50, windowMs: 650, now: 1000 }).since, 350);
    assert.equal(selectWindow(h, { lastClearAt: 450, windowMs: 650, now: 1000 }).since, 450);
    assert.equal(selectWindow(h, { lastClearAt: 450, windowMs: 0, now: 1000 }).since, 450);
  });
  it('never starts with a tool result whose call fell out of the window', () => {
    const s = selectWindow(h, { windowMs: 750, now: 1000 }); // cutoff 250 would start at the result
    assert.equal(s.messages[0].role, 'user');
    assert.equal(s.startIndex, 3);
  });
  it('returns nothing when everything is older than the clear', () => {
    assert.deepEqual(selectWindow(h, { lastClearAt: 600, now: 1000 }).messages, []);
  });

  it('never cuts the history message a compaction put first (the floor); a clear after it does', () => {
    const history = historyMessage({ summary: 'earlier work', pins: ['PIN'], instructions: ['never touch the migrations'] }, 50);
    const view = [history, ...h];
    const s = selectWindow(view, { windowMs: 650, now: 1000 }); // cutoff 350: only the last turn is new enough
    assert.deepEqual(s.messages, [history, h[3], h[4]]);
    assert.equal(s.dropped, 3);
    assert.deepEqual(selectWindow(view, { windowMs: 1, now: 1000 }).messages, [history]);
    assert.deepEqual(selectWindow(view, { lastClearAt: 600, now: 1000 }).messages, [], 'a clear newer than it empties the context');
  });
});
