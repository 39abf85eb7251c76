import assert from 'node:assert/strict';
import type { RestoreOutcome, TurnChanges } from '../../src/app/checkpoint-actions';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { changesItem, restoreNote, restoredCards, rewindDivider } from '../../src/panel/turn-changes';
import { parseHostMessage, parseWebviewMessage, type HostToWebview } from '../../src/protocol/messages';
import type { Message } from '../../src/providers/types';

const changes = (turn: number): TurnChanges => ({
  turn,
  files: [
    { path: 'notes.txt', change: 'modified', added: 2, removed: 1, restorable: true },
    { path: 'made/new.txt', change: 'created', added: 1, removed: 0, restorable: true },
  ],
});

describe('panel: changes in a turn and a checkpoint restore', () => {
  it('shows a turn’s changed files as a card whose messages validate', () => {
    const posted: HostToWebview[] = [];
    const p = new ChatPresenter((m) => posted.push(m));
    p.put(changesItem('ch2', changes(2)));
    const card = p.transcript.items.find((i) => i.kind === 'changes');
    assert.ok(card?.kind === 'changes');
    assert.equal(card.turn, 2);
    assert.deepEqual(
      card.files.map((f) => [f.path, f.added, f.removed]),
      [
        ['notes.txt', 2, 1],
        ['made/new.txt', 1, 0],
      ],
    );
    for (const m of posted) assert.ok(parseHostMessage(m).ok, JSON.stringify(m));
  });

  it('a restore keeps the chat, marks its card and later ones restored, and continues under a "restored to before turn N" divider', () => {
    const p = new ChatPresenter(() => {});
    const user: Message = { role: 'user', content: [{ type: 'text', text: 'first' }], timestamp: 1 };
    p.load([user]);
    p.put(changesItem('ch2', changes(2)));
    p.put(changesItem('ch3', changes(3)));
    const before = p.transcript.items.length;
    const outcome: RestoreOutcome = { turn: 2, restored: ['notes.txt'], kept: ['made/new.txt'], notRestorable: [] };
    for (const item of restoredCards(p.transcript.items, outcome)) p.put(item);
    p.continueUnder([user], rewindDivider(outcome.turn));
    const items = p.transcript.items;
    assert.equal(items.length, before + 2, 'nothing removed: a divider and the rewound context are added');
    const cards = items.filter((i) => i.kind === 'changes');
    assert.deepEqual(
      cards.map((c) => c.kind === 'changes' && [c.turn, c.restored, c.note]),
      [
        [2, true, '1 file restored; kept your changes to made/new.txt.'],
        [3, true, undefined],
      ],
    );
    const divider = items.find((i) => i.kind === 'divider');
    assert.match(divider?.kind === 'divider' ? divider.text : '', /^Restored to before turn 2 \(files and conversation\)/);
  });

  it('says what a restore could not do', () => {
    assert.equal(
      restoreNote({ turn: 1, restored: [], kept: [], notRestorable: [{ path: 'big.log', reason: 'larger than 1 MB' }] }),
      '0 files restored; not restorable: big.log (larger than 1 MB).',
    );
  });

  it('the webview’s checkpoint intents are validated (a turn is a positive integer, a path is required)', () => {
    assert.ok(parseWebviewMessage({ type: 'checkpoint/restore', turn: 2 }).ok);
    assert.ok(parseWebviewMessage({ type: 'checkpoint/diff', turn: 2, path: 'a.txt' }).ok);
    assert.equal(parseWebviewMessage({ type: 'checkpoint/restore', turn: 0 }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'checkpoint/restore', turn: 1.5 }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'checkpoint/diff', turn: 2, path: '' }).ok, false);
  });
});
