import * as assert from 'node:assert/strict';
import type { AgentEvent, CompactionChange, CompactionReport } from '../../src/agent/events';
import { historyMessage } from '../../src/context/compaction';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { compactionDetails, keptWords } from '../../src/panel/compaction-card';
import { DIVIDER_TEXT } from '../../src/panel/compaction-card';
import { messagesToItems } from '../../src/panel/transcript-items';
import type { ChatItem, ChatItemOf, HostToWebview } from '../../src/protocol/messages';
import type { Message } from '../../src/providers/types';
import { assistant, call, result, user } from './panel-factories';

function setup() {
  const posted: HostToWebview[] = [];
  const p = new ChatPresenter(
    (m) => posted.push(m),
    () => 1_000,
  );
  const run = (...events: AgentEvent[]) => events.forEach((e) => p.handle(e));
  const items = (): readonly ChatItem[] => p.transcript.items;
  const card = () => items().find((i): i is ChatItemOf<'compaction'> => i.kind === 'compaction');
  return { p, posted, run, items, card };
}

/** Three turns in the chat, as the presenter shows them live. */
function threeTurns(s: ReturnType<typeof setup>): Message[] {
  const view: Message[] = [];
  for (const [i, text] of ['first', 'second', 'third'].entries()) {
    const q = user(text);
    const ans = assistant(`answer ${i}`);
    view.push(q, ans);
    s.run(
      { type: 'turn_start', turnId: `t${i}`, prompt: q },
      { type: 'message_start', role: 'user', message: q },
      { type: 'message_start', role: 'assistant' },
      { type: 'message_end', message: ans },
      { type: 'turn_end', turnId: `t${i}`, reason: 'done', messages: [] },
    );
  }
  return view;
}

const report = (over: Partial<CompactionReport> = {}): CompactionReport => ({
  beforeTokens: 85_000,
  afterTokens: 22_000,
  beforeMessages: 6,
  afterMessages: 5,
  strategies: ['summary'],
  durationMs: 12_000,
  trigger: 'manual',
  summary: 'We fixed **the tests**.',
  ...over,
});

/** A summary of the first turn, the last two kept verbatim. */
function summarized(view: Message[]): CompactionChange {
  const history = historyMessage({ summary: 'We fixed **the tests**.', pins: [], instructions: ['first'] }, 1);
  return {
    before: view,
    after: [history, ...view.slice(2)],
    strategies: ['summary'],
    summary: 'We fixed **the tests**.',
    storedRefIds: [],
  };
}

describe('panel: compaction is visible', () => {
  it('shows "Compacting… (summarizing N messages)" while it runs, and says so in turn/state', () => {
    const s = setup();
    s.run({ type: 'compaction_start', trigger: 'manual', summarizing: 42 });
    const row = s.items().find((i) => i.kind === 'compacting');
    assert.ok(row?.kind === 'compacting');
    assert.equal(row.text, 'Compacting… (summarizing 42 messages)');
    assert.deepEqual(s.posted.filter((m) => m.type === 'turn/state').at(-1), { type: 'turn/state', running: false, compacting: true });
    assert.equal(s.p.view().compacting, true, 'a re-shown panel shows the row and waits too');
    s.run({ type: 'compaction_end', outcome: 'nothing' });
    assert.equal(
      s.items().find((i) => i.kind === 'compacting'),
      undefined,
      'the row goes',
    );
    assert.deepEqual(s.posted.filter((m) => m.type === 'turn/state').at(-1), { type: 'turn/state', running: false });
  });

  it('a cancelled compaction leaves only a note that nothing changed', () => {
    const s = setup();
    const view = threeTurns(s);
    const before = structuredClone(s.items());
    s.run({ type: 'compaction_start', trigger: 'threshold', summarizing: 2 }, { type: 'compaction_end', outcome: 'cancelled' });
    assert.deepEqual(s.items().slice(0, before.length), before);
    const note = s.items().at(-1);
    assert.ok(note?.kind === 'notice');
    assert.match(note.text, /cancelled.*exactly as it was/);
    assert.equal(s.items().length, view.length + 1);
  });

  it('a finished compaction: plain-words card with the summary and Undo, and a divider above the kept turns', () => {
    const s = setup();
    s.p.setUndoAvailable(true);
    const view = threeTurns(s);
    const shown = s.items().map((i) => i.id);
    s.run(
      { type: 'compaction_start', trigger: 'manual', summarizing: 2 },
      { type: 'compaction_end', outcome: 'done', change: summarized(view) },
      { type: 'compaction', report: report() },
    );
    const card = s.card();
    assert.ok(card);
    assert.equal(card.kept, 'kept: summary + last 2 turns');
    assert.equal(card.summary, 'We fixed **the tests**.');
    assert.equal(card.canUndo, true);
    assert.match(card.text, /^Compacted: 85k → 22k tokens, freed 63k\. .*Took 12 s, no model call\.$/);
    assert.doesNotMatch(card.text, /summary|clear_tool_results|drop_oldest/, 'no strategy names');
    // Everything stays visible: nothing shown before was removed, and the divider sits above "second".
    const ids = s.items().map((i) => i.id);
    for (const id of shown) assert.ok(ids.includes(id), `${id} still shown`);
    const kinds = s.items().map((i) => (i.kind === 'user' ? `user:${i.text}` : i.kind));
    assert.deepEqual(kinds, ['user:first', 'assistant', 'divider', 'user:second', 'assistant', 'user:third', 'assistant', 'compaction']);
    const divider = s.items().find((i) => i.kind === 'divider');
    assert.ok(divider?.kind === 'divider' && divider.text === DIVIDER_TEXT);
    // The webview gets the divider as an insert before "second".
    const insert = s.posted.flatMap((m) => (m.type === 'chat/ops' ? m.ops : [])).find((o) => o.op === 'insert');
    assert.ok(insert?.op === 'insert' && insert.before === ids[3]);
  });

  it('Undo is disabled when it cannot work: not stored, a turn or compaction running, an older card, after a restore', () => {
    const s = setup();
    const view = threeTurns(s);
    const done = (): AgentEvent[] => [
      { type: 'compaction_end', outcome: 'done', change: summarized(view) },
      { type: 'compaction', report: report() },
    ];
    s.run(...done());
    assert.equal(s.card()?.canUndo, false, 'the session is not stored');
    s.p.setUndoAvailable(true);
    assert.equal(s.card()?.canUndo, true);
    s.run({ type: 'turn_start', turnId: 'x', prompt: user('go on') });
    assert.equal(s.card()?.canUndo, false, 'while a turn runs');
    s.run({ type: 'turn_end', turnId: 'x', reason: 'done', messages: [] });
    assert.equal(s.card()?.canUndo, true);
    s.run({ type: 'compaction_start', trigger: 'manual', summarizing: 1 });
    assert.equal(s.card()?.canUndo, false, 'while another compaction runs');
    s.run({ type: 'compaction_end', outcome: 'cancelled' });
    assert.equal(s.card()?.canUndo, true);
    s.run(...done());
    const cards = s.items().filter((i): i is ChatItemOf<'compaction'> => i.kind === 'compaction');
    assert.deepEqual(
      cards.map((c) => c.canUndo),
      [false, true],
      'only the newest',
    );
    s.p.continueWith([user('restored')], 'restore');
    assert.ok(
      s.items().every((i) => i.kind !== 'compaction' || !i.canUndo),
      'not after a restore',
    );
  });

  it('Clear keeps the chat and puts a divider under it that says the context was cleared', () => {
    const s = setup();
    threeTurns(s);
    const before = s.items().map((i) => i.id);
    s.p.continueWith([], 'clear');
    const after = s.items();
    assert.deepEqual(
      after.slice(0, before.length).map((i) => i.id),
      before,
      'every message stays on screen',
    );
    const last = after.at(-1);
    assert.equal(last?.kind, 'divider');
    assert.match(last?.kind === 'divider' ? last.text : '', new RegExp(`^${DIVIDER_TEXT} · context cleared`));
  });

  it('Undo keeps the chat: the card says "Undone" and its divider goes', () => {
    const s = setup();
    s.p.setUndoAvailable(true);
    const view = threeTurns(s);
    s.run({ type: 'compaction_end', outcome: 'done', change: summarized(view) }, { type: 'compaction', report: report() });
    const count = s.items().length;
    s.p.continueWith(view, 'undo');
    assert.equal(s.items().filter((i) => i.kind === 'divider').length, 0);
    assert.equal(s.items().length, count - 1);
    assert.deepEqual({ canUndo: s.card()?.canUndo, undone: s.card()?.undone }, { canUndo: false, undone: true });
  });

  it('a restore keeps everything shown, adds a divider, then the restored context with its summary as a summary card', () => {
    const s = setup();
    threeTurns(s);
    const shown = structuredClone(s.items());
    const restored = [
      historyMessage({ summary: 'Earlier: set up the repo.', pins: ['PIN'], instructions: ['use tabs'] }, 1),
      user('third'),
      assistant('ok'),
    ];
    s.p.continueWith(restored, 'restore');
    assert.deepEqual(s.items().slice(0, shown.length), shown);
    const added = s.items().slice(shown.length);
    assert.deepEqual(
      added.map((i) => i.kind),
      ['divider', 'summary', 'user', 'assistant'],
    );
    const summary = added[1];
    assert.ok(summary.kind === 'summary');
    assert.equal(summary.text, 'Earlier: set up the repo.');
    assert.deepEqual(summary.carried, ['PIN', 'use tabs']);
    assert.equal(new Set(s.items().map((i) => i.id)).size, s.items().length, 'ids stay unique');
  });
});

describe('panel: the compaction view — what left the context', () => {
  it('lists what stayed verbatim, what was summarized (with the summary) and the stored results with their ref ids', () => {
    const read = call('c1', 'read_file', { path: 'src/a.ts' });
    const before: Message[] = [
      user('fix the tests'),
      assistant('', {}, [read]),
      result('c1', 'x'.repeat(5000)),
      assistant('done'),
      user('now the docs'),
      assistant('ok'),
    ];
    const stub = { ...result('c1', '[stored]'), refId: 'r7' };
    const history = historyMessage({ summary: 'Fixed tests.', pins: [], instructions: [] }, 1);
    const change: CompactionChange = {
      before,
      after: [history, before[4], before[5]],
      strategies: ['clear_tool_results', 'summary'],
      summary: 'Fixed tests.',
      storedRefIds: ['r7'],
    };
    // The cleared stub is not in `after` here (it was summarized too); its ref comes from the stub seen in before/after.
    const d = compactionDetails({ ...change, before: [...before.slice(0, 2), stub, ...before.slice(3)] });
    assert.equal(d.keptCount, 2);
    assert.deepEqual(d.kept, [
      { role: 'user', text: 'now the docs' },
      { role: 'assistant', text: 'ok' },
    ]);
    assert.equal(d.summarizedCount, 4);
    assert.deepEqual(d.summarized[0], { role: 'user', text: 'fix the tests' });
    assert.equal(d.summarized[1].text, '[calls read_file]');
    assert.equal(d.summarized[2].text, 'read_file result (stored)');
    assert.equal(d.summary, 'Fixed tests.');
    assert.deepEqual(d.stored, [{ refId: 'r7', toolName: 'read_file', target: 'src/a.ts' }]);
    assert.equal(d.droppedCount, 0);
  });

  it('a pass without a summary lists what it dropped; a clearing-only pass keeps every message', () => {
    const before: Message[] = [user('one'), assistant('a'), user('two'), assistant('b')];
    const history = historyMessage({ pins: [], instructions: ['one'] }, 1);
    const dropped: CompactionChange = {
      before,
      after: [history, before[2], before[3]],
      strategies: ['drop_oldest_turns'],
      storedRefIds: [],
    };
    const d = compactionDetails(dropped);
    assert.equal(d.droppedCount, 2);
    assert.equal(d.summarizedCount, 0);
    assert.equal(keptWords(dropped), 'kept: your instructions + the last turn; older turns dropped');
    assert.equal(
      keptWords({ after: before, strategies: ['clear_tool_results'], storedRefIds: ['r1', 'r2'] }),
      'kept: every message; 2 tool results stored out of context',
    );
  });

  it('a reopened compacted session starts with a summary card, never a user bubble', () => {
    const items = messagesToItems([historyMessage({ summary: '<b>S</b>', pins: [], instructions: [] }, 1), user('hi')]);
    assert.deepEqual(
      items.map((i) => i.kind),
      ['summary', 'user'],
    );
    assert.ok(items[0].kind === 'summary' && items[0].text === '<b>S</b>');
  });
});
