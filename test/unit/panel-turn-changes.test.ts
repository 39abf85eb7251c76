import assert from 'node:assert/strict';
import type { RestoreOutcome, TurnChanges } from '../../src/app/checkpoint-actions';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { changesItem, restoreNote, rewindChat } from '../../src/panel/turn-changes';
import { parseHostMessage, parseWebviewMessage, type HostToWebview } from '../../src/protocol/messages';
import { assistant, user } from './panel-factories';

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

  it('a restore shows each message once: the rewound turns leave the chat and their prompt goes back to the box', () => {
    const p = new ChatPresenter(() => {});
    p.load([user('first prompt'), assistant('Hello.'), user('edit the notes'), assistant('Edited.')]);
    p.put(changesItem('ch2', changes(2)));
    const outcome: RestoreOutcome = {
      turn: 2,
      restored: ['notes.txt'],
      kept: ['made/new.txt'],
      notRestorable: [],
      prompt: user('edit the notes'),
      rewoundPrompts: 1,
    };
    const plan = rewindChat(p.transcript.items, outcome, 'rw2');
    assert.ok(plan);
    for (const id of plan.remove) p.remove(id);
    p.put(plan.note);
    const shown = p.transcript.items.map((i) => (i.kind === 'user' || i.kind === 'assistant' ? `${i.kind}:${i.text}` : i.kind));
    assert.deepEqual(shown, ['user:first prompt', 'assistant:Hello.', 'notice'], 'the earlier exchange once, the rewound turn gone');
    assert.deepEqual(plan.prompt, { text: 'edit the notes' }, 'the rewound prompt goes back to the message box');
    assert.equal(plan.note.title, 'Restored to before turn 2 (files and conversation)');
    assert.equal(plan.note.text, '1 file restored; kept your changes to made/new.txt. Your prompt is back in the message box.');
    assert.ok(parseHostMessage({ type: 'prompt/fill', ...plan.prompt }).ok);
    // A rewound prompt that is not shown (an older page) leaves the chat to be shown again from the store.
    assert.equal(rewindChat(p.transcript.items, { ...outcome, rewoundPrompts: 3 }, 'rw2'), undefined);
  });

  it('says what a restore could not do', () => {
    assert.equal(
      restoreNote({ turn: 1, restored: [], kept: [], notRestorable: [{ path: 'big.log', reason: 'larger than 1 MB' }], rewoundPrompts: 1 }),
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
