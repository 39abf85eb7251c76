import * as assert from 'node:assert/strict';
import { addSpend, emptySpend, type SessionSpend } from '../../src/context/cost';
import { pricesFor } from '../../src/context/models';
import { toHistoryView } from '../../src/panel/history-view';

const date = (ms: number) => `t${ms}`;

describe('panel: the history list from the store rows', () => {
  it('lists sessions newest first with date, message count, size and the current one marked', () => {
    const v = toHistoryView(
      {
        sessions: [
          { id: 's1', title: 'Old', createdAt: 1, updatedAt: 10, messageCount: 4, bytes: 2048 },
          { id: 's2', title: '  ', createdAt: 2, updatedAt: 20, messageCount: 12, bytes: 1_500_000 },
        ],
        snapshots: [],
        currentSessionId: 's1',
        canUndoCompaction: true,
        timeline: [],
      },
      date,
    );
    assert.deepEqual(v.sessions, [
      { id: 's2', title: 'Untitled session', date: 't20', messageCount: 12, size: '1.4 MB', current: false },
      { id: 's1', title: 'Old', date: 't10', messageCount: 4, size: '2 KB', current: true },
    ]);
  });

  it('shows each session\'s total ("$0.42"), "cost unknown" without prices, and nothing when none is recorded', () => {
    const haiku = pricesFor('claude-haiku-4-5');
    // 300k input at $1 + 24k output at $5 per million = $0.42; 200k cache reads at $0.1 = $0.02 more.
    let priced = addSpend(emptySpend(), { input: 300_000, output: 24_000, cacheRead: 0, cacheWrite: 0 }, haiku);
    priced = addSpend(priced, { input: 0, output: 0, cacheRead: 200_000, cacheWrite: 0 }, haiku);
    const unpriced = addSpend(emptySpend(), { input: 5_000, output: 100, cacheRead: 0, cacheWrite: 0 }, undefined);
    const mixed = addSpend(priced, { input: 5_000, output: 100, cacheRead: 0, cacheWrite: 0 }, undefined);
    const row = (id: string, spend?: SessionSpend) => ({ id, title: id, createdAt: 1, updatedAt: 1, messageCount: 2, bytes: 10, spend });
    const v = toHistoryView(
      {
        sessions: [row('priced', priced), row('unpriced', unpriced), row('mixed', mixed), row('old'), row('fresh', emptySpend())],
        snapshots: [],
        currentSessionId: null,
        canUndoCompaction: false,
        timeline: [],
      },
      date,
    );
    const cost = Object.fromEntries(v.sessions.map((s) => [s.id, s.cost]));
    assert.equal(cost.priced?.label, '$0.44');
    assert.equal(
      cost.priced?.title,
      'input $0.3 · output $0.12 · cache reads $0.02 · cache writes $0 · cache saved $0.18 · 500k tokens in (200k from cache), 24k out · 2 requests',
    );
    assert.equal(cost.unpriced?.label, 'cost unknown');
    assert.match(cost.unpriced?.title ?? '', /^No prices for this model · 5k tokens in/);
    assert.equal(cost.mixed?.label, '$0.44+', 'a partly unpriced session says its total is a lower bound');
    assert.match(cost.mixed?.title ?? '', /1 unpriced$/);
    assert.equal(cost.old, undefined, 'a session from before costs were stored shows no figure, not $0');
    assert.equal(cost.fresh, undefined, 'nor does a session without requests');
  });

  it('shows one timeline of rewind points, newest first, each saying what restoring it does', () => {
    const v = toHistoryView(
      {
        sessions: [],
        snapshots: [],
        currentSessionId: null,
        canUndoCompaction: true,
        timeline: [
          {
            kind: 'checkpoint',
            at: 1,
            turn: 2,
            prompt: 'Rename   the parser\nand its tests',
            files: ['src/parser.ts', 'test/parser.test.ts'],
          },
          { kind: 'compaction', at: 2, beforeMessages: 40, afterMessages: 5, beforeTokens: 85_000, afterTokens: 22_000, restorable: false },
          { kind: 'clear', at: 3, messages: 7, restorable: false },
          { kind: 'snapshot', at: 4, id: 'snap_1', name: 'before refactor', messages: 12 },
          { kind: 'compaction', at: 5, beforeMessages: 14, afterMessages: 3, beforeTokens: 30_000, afterTokens: 6_000, restorable: true },
        ],
      },
      date,
    );
    assert.deepEqual(
      v.timeline.map((e) => [e.kind, e.date, e.title, e.action?.type ?? null]),
      [
        ['compaction', 't5', 'Compacted: 30k → 6k tokens', 'compaction/undo'],
        ['snapshot', 't4', 'Snapshot “before refactor”', 'snapshot/restore'],
        ['clear', 't3', 'Cleared the context', null],
        ['compaction', 't2', 'Compacted: 85k → 22k tokens', null],
        ['checkpoint', 't1', 'Before “Rename the parser and its tests”', 'checkpoint/restore'],
      ],
    );
    const [undo, , clear, old, checkpoint] = v.timeline;
    assert.equal(undo.restores, 'Undo gives the model the 14 messages it had before (30k tokens).');
    assert.match(clear.restores, /^Can no longer be undone/);
    assert.match(old.restores, /^Can no longer be undone/);
    assert.equal(checkpoint.detail, 'Turn 2 changed 2 files: src/parser.ts, test/parser.test.ts');
    assert.match(checkpoint.restores, /^Restore puts these 2 files back as they were before this turn and rewinds the conversation/);
    assert.deepEqual(checkpoint.action, { type: 'checkpoint/restore', turn: 2 });
    // Five kinds of entry are gone: no separate snapshot list, no "Undo of the last compaction · 0 messages".
    assert.deepEqual(Object.keys(v).sort(), ['sessions', 'timeline']);
  });
});
