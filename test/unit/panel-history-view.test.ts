import * as assert from 'node:assert/strict';
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
      },
      date,
    );
    assert.deepEqual(v.sessions, [
      { id: 's2', title: 'Untitled session', date: 't20', messageCount: 12, size: '1.4 MB', current: false },
      { id: 's1', title: 'Old', date: 't10', messageCount: 4, size: '2 KB', current: true },
    ]);
    assert.equal(v.canUndoCompaction, true);
  });

  it('labels snapshots by their description or their kind', () => {
    const snap = (id: string, kind: 'compaction' | 'named' | 'restore', createdAt: number, description: string | null) => ({
      id,
      kind,
      createdAt,
      throughSeq: 1,
      tokens: null,
      description,
      summary: null,
      messageCount: 3,
      windowStart: null,
      windowEnd: null,
    });
    const v = toHistoryView(
      {
        sessions: [],
        snapshots: [snap('a', 'compaction', 1, null), snap('b', 'named', 2, 'before refactor')],
        currentSessionId: null,
        canUndoCompaction: false,
      },
      date,
    );
    assert.deepEqual(
      v.snapshots.map((s) => [s.id, s.label, s.date]),
      [
        ['b', 'before refactor', 't2'],
        ['a', 'Compaction', 't1'],
      ],
    );
  });
});
