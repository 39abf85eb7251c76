import { strict as assert } from 'node:assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../../src/providers/types';
import { cleanup, open, tempRoot, toolTurn as makeToolTurn } from '../fixtures/store/helpers';

const toolTurn = (i: number, calls: number) => makeToolTurn(i, calls, { answer: 'turn', padding: 300 });

describe('store: the transcript a page at a time (newest first)', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('an empty session has an empty last page and nothing older', async () => {
    const store = await open(root);
    const s = await store.sessions.create('empty');
    assert.deepEqual(await store.sessions.transcriptPage(s.id, { limit: 50 }), { messages: [], hasOlder: false });
    await store.close();
  });

  it('pages back through live rows and sealed segments to the first message, never splitting a call from its results', async () => {
    // Small limits so the session seals several segments (older messages leave the database).
    const store = await open(root, { sealLiveBytes: 20_000, keepLiveMessages: 20 });
    const s = await store.sessions.create('paged');
    const all: Message[] = [];
    for (let i = 0; i < 60; i++) {
      const turn = toolTurn(i, 1 + (i % 3));
      all.push(...turn);
      await store.sessions.appendTurn(s.id, turn);
    }
    await store.sessions.settle();
    assert.ok(readdirSync(join(root, 'sessions')).filter((f) => f.includes('.seg-')).length >= 2, 'segments were sealed');

    const seen: number[] = [];
    let page = await store.sessions.transcriptPage(s.id, { limit: 17 });
    // The last page ends with the newest message.
    assert.equal(page.messages.at(-1)?.seq, all.length);
    let pages = 1;
    for (;;) {
      const seqs = page.messages.map((m) => m.seq);
      assert.ok(page.messages.length <= 17 && page.messages.length > 0, `page of ${page.messages.length}`);
      // Oldest first, consecutive, and directly before what was seen.
      assert.deepEqual(
        seqs,
        seqs.map((_, k) => seqs[0] + k),
      );
      if (seen.length) assert.equal(seqs.at(-1)! + 1, seen[0]);
      // No page starts with a tool result: its call is on the same page.
      assert.notEqual(page.messages[0].message.role, 'toolResult', `page starting at ${seqs[0]}`);
      seen.unshift(...seqs);
      if (!page.hasOlder) break;
      page = await store.sessions.transcriptPage(s.id, { beforeSeq: seqs[0], limit: 17 });
      pages++;
    }
    assert.deepEqual(
      seen,
      all.map((_, k) => k + 1),
    );
    assert.ok(pages >= all.length / 17, `${pages} pages`);
    // What was read is what was written.
    const again = await store.sessions.transcriptPage(s.id, { beforeSeq: 10, limit: 3 });
    assert.deepEqual(
      again.messages.map((m) => m.message),
      all.slice(again.messages[0].seq - 1, 9),
    );
    assert.equal(again.hasOlder, again.messages[0].seq > 1);
    await store.close();
  });

  it('the first page is the last one when the session is shorter than a page; a bad limit is refused', async () => {
    const store = await open(root);
    const s = await store.sessions.create('short');
    await store.sessions.appendTurn(s.id, toolTurn(0, 2));
    const page = await store.sessions.transcriptPage(s.id, { limit: 200 });
    assert.deepEqual(
      page.messages.map((m) => m.seq),
      [1, 2, 3, 4],
    );
    assert.equal(page.hasOlder, false);
    await assert.rejects(store.sessions.transcriptPage(s.id, { limit: 0 }), /1 to 10000/);
    await assert.rejects(store.sessions.transcriptPage(s.id, { limit: 1.5 }), /1 to 10000/);
    await store.close();
  });

  it('reads one message by seq, in a segment or live', async () => {
    const store = await open(root, { sealLiveBytes: 20_000, keepLiveMessages: 20 });
    const s = await store.sessions.create('one');
    for (let i = 0; i < 40; i++) await store.sessions.appendTurn(s.id, toolTurn(i, 1));
    await store.sessions.settle();
    assert.deepEqual((await store.sessions.message(s.id, 4))?.message.content, [{ type: 'text', text: 'prompt 1' }]);
    assert.equal((await store.sessions.message(s.id, 120))?.seq, 120);
    assert.equal(await store.sessions.message(s.id, 121), undefined);
    assert.equal(await store.sessions.message(s.id, -1), undefined);
    await store.close();
  });
});
