import { strict as assert } from 'node:assert';
import { storedTranscript } from '../../src/app/stored-transcript';
import { storedCompaction } from '../../src/context/compaction';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import type { Message } from '../../src/providers/types';
import type { ChatItem } from '../../src/protocol/view-models';
import { REQUESTS } from '../../src/protocol/messages';
import { cleanup, open, tempRoot, toolTurn as makeToolTurn, user } from '../fixtures/store/helpers';

const toolTurn = (i: number, calls: number) => makeToolTurn(i, calls);

/** Tool calls of turn `i`: turn 19 (right before the clear) has none, so the clear's place is after a plain answer. */
const callsOf = (i: number) => (i === 19 ? 0 : 1 + (i % 3));

/** What the panel shows, as comparable labels: a message's text, a tool card, a divider or a card. */
function label(item: ChatItem): string {
  if (item.kind === 'user' || item.kind === 'assistant') return item.text;
  if (item.kind === 'tool') return `tool ${item.output.split(' r')[0]} ${item.status}`;
  return `${item.kind} ${item.id}`;
}

describe('panel: a reopened session shows its stored transcript with compactions and clears in place', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('pages back through every stored message, dividers and cards where they happened, no duplicates, no split tool pairs', async () => {
    const store = await open(root);
    const s = await store.sessions.create('long');
    const all: Message[] = [];
    const seqOf = new Map<string, number>();
    const turns = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const turn = toolTurn(i, callsOf(i));
        seqOf.set(`prompt ${i}`, all.length + 1);
        all.push(...turn);
        await store.sessions.appendTurn(s.id, turn);
      }
    };
    const compact = (firstKept: number | undefined) =>
      store.sessions.recordCompaction(s.id, {
        beforeTokens: 5000,
        afterTokens: 1000,
        beforeMessages: all.length,
        afterMessages: 4,
        strategies: ['summarize'],
        summary: 'what happened',
        firstKeptSeq: firstKept,
        snapshot: { messages: [user('summary stand-in')] },
      });
    await turns(0, 10);
    const a = await compact(seqOf.get('prompt 8'));
    await turns(10, 20);
    await store.sessions.clear(s.id);
    await turns(20, 30);
    const b = await compact(undefined);
    await turns(30, 35);

    const records = await store.sessions.listCompactions(s.id);
    const stored = await storedTranscript(store.sessions, s.id, 7);
    const sent: unknown[] = [];
    const presenter = new ChatPresenter(() => {});
    presenter.load([user('context view only')], {
      compactions: records.reverse().map(storedCompaction),
      newestUndoable: false,
      stored,
    });
    const firstPage = presenter.view().items.map(label);
    assert.ok(!firstPage.includes('prompt 0'), 'only the newest page at first');
    assert.ok(!firstPage.includes('context view only'), 'the context view is not what a reopened session shows');
    let pages = 0;
    while (presenter.view().hasOlder) {
      sent.push(await presenter.olderPage(presenter.view().items[0].id));
      pages++;
      assert.ok(pages < 100, 'paging ends');
    }
    assert.ok(pages > 10, `many pages (${pages})`);
    const items = presenter.view().items;
    const shown = items.map(label);
    assert.equal(new Set(items.map((i) => i.id)).size, items.length, 'no item twice');

    // Without the marks, exactly the stored transcript, every tool card with its result (no pair split across pages).
    const expected: string[] = [];
    for (let i = 0; i < 35; i++)
      expected.push(`prompt ${i}`, `answer ${i}`, ...Array.from({ length: callsOf(i) }, (_, k) => `tool result ${i}.${k} done`));
    assert.deepEqual(
      shown.filter((l) => !l.startsWith('divider') && !l.startsWith('compaction')),
      expected,
    );

    // The marks, in order, where they happened.
    const at = (l: string) => shown.indexOf(l);
    const marks = shown.filter((l) => l.startsWith('divider') || l.startsWith('compaction'));
    assert.deepEqual(marks, [`divider h${a.id}d`, `compaction h${a.id}`, 'divider hclear', `divider h${b.id}d`, `compaction h${b.id}`]);
    assert.equal(at(`divider h${a.id}d`), at('prompt 8') - 1, 'the first compaction’s divider is right above the first turn it kept');
    assert.equal(at(`compaction h${a.id}`), at('prompt 10') - 1, 'its card is where it ran: after turn 9');
    assert.equal(at('divider hclear'), at('prompt 20') - 1, 'the clear’s divider is after the last message before it');
    assert.equal(at(`divider h${b.id}d`), at('prompt 30') - 2, 'a compaction that kept nothing: divider right above its card');
    assert.equal(at(`compaction h${b.id}`), at('prompt 30') - 1);
    assert.ok(!shown.includes('summary stand-in') && !shown.includes('context view only'));
    // Every page is an answer the protocol accepts.
    assert.equal(sent.filter((m) => REQUESTS['transcript/older'][1].safeParse(m).success).length, pages);
    await store.close();
  });

  it('a request for the same top while a page is read gets nothing: no page twice', async () => {
    const store = await open(root);
    const s = await store.sessions.create('twice');
    for (let i = 0; i < 10; i++) await store.sessions.appendTurn(s.id, toolTurn(i, 1));
    const stored = await storedTranscript(store.sessions, s.id, 6);
    const presenter = new ChatPresenter(() => {});
    presenter.load([], { compactions: [], newestUndoable: false, stored });
    const top = presenter.view().items[0].id;
    await Promise.all([presenter.olderPage(top), presenter.olderPage(top)]);
    const ids = presenter.view().items.map((i) => i.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.length > 6 && ids.length <= 12, `two pages, not three (${ids.length} items)`);
    await store.close();
  });
});
