import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HeadroomStore } from '../../src/store';
import { assistant, cleanup, open, tempRoot, texts, toolResult, turnMessages, user } from '../fixtures/store/helpers';

describe('store sessions', () => {
  let root: string;
  let store: HeadroomStore;
  beforeEach(async () => {
    root = tempRoot();
    store = await open(root);
  });
  afterEach(async () => {
    await store.close();
    cleanup(root);
  });

  it('creates, lists (newest first, with counts and bytes), renames and deletes sessions', async () => {
    const a = await store.sessions.create('first', 1000);
    const b = await store.sessions.create('second', 2000);
    assert.deepEqual(
      store.sessions.list().map((s) => s.title),
      ['second', 'first'],
    );
    await store.sessions.appendTurn(a.id, turnMessages(0), { at: 3000 });
    await store.results.put(a.id, 'run_command', 'r'.repeat(5000));
    const [top] = store.sessions.list();
    assert.equal(top.id, a.id, 'updated sessions move to the top');
    assert.equal(top.messageCount, 2);
    assert.ok(top.bytes > 5000, 'bytes count transcript and stored results');
    await store.sessions.rename(b.id, '  renamed  ');
    assert.equal(store.sessions.get(b.id).title, 'renamed');
    await store.sessions.delete(a.id);
    assert.deepEqual(
      store.sessions.list().map((s) => s.id),
      [b.id],
    );
    assert.equal(existsSync(join(root, 'sessions', `${a.id}.sqlite.journal`)), false);
    assert.deepEqual(store.results.list(a.id), []);
    assert.equal(store.results.totalBytes(), 0);
  });

  it('counts a turn in the session list as soon as the turn is saved', async () => {
    // The index row's counts are written after the turn without waiting; the list must not show the
    // count from before the turn meanwhile (the panel read "1 in transcript" after a two-message turn).
    const s = await store.sessions.create();
    await store.sessions.appendTurn(s.id, [user('q')]);
    await store.sessions.appendTurn(s.id, [assistant('a'), toolResult('t')], { continueTurn: true });
    assert.equal(store.sessions.get(s.id).messageCount, 3);
    assert.equal(store.sessions.list()[0].messageCount, 3);
  });

  it('numbers turns and seqs, and continues a turn on request', async () => {
    const s = await store.sessions.create();
    assert.deepEqual(await store.sessions.appendTurn(s.id, [user('q')]), { turn: 1, firstSeq: 1, lastSeq: 1 });
    assert.deepEqual(await store.sessions.appendTurn(s.id, [assistant('a'), toolResult('t')], { continueTurn: true }), {
      turn: 1,
      firstSeq: 2,
      lastSeq: 3,
    });
    assert.deepEqual(await store.sessions.appendTurn(s.id, [user('q2')]), { turn: 2, firstSeq: 4, lastSeq: 4 });
    const t = await store.sessions.transcript(s.id, { fromSeq: 2, limit: 2 });
    assert.deepEqual(
      t.map((m) => [m.seq, m.turn, m.message.role]),
      [
        [2, 1, 'assistant'],
        [3, 1, 'toolResult'],
      ],
    );
  });

  it('loads the resume snapshot first and the transcript after it; undo restores the previous view', async () => {
    const s = await store.sessions.create();
    for (let i = 0; i < 4; i++) await store.sessions.appendTurn(s.id, turnMessages(i));
    const c = await store.sessions.recordCompaction(s.id, {
      beforeTokens: 500,
      afterTokens: 100,
      beforeMessages: 8,
      afterMessages: 3,
      strategies: ['summary'],
      summary: 'sum',
      firstKeptSeq: 7,
      snapshot: { messages: [user('summary of turns 0-2')], tokens: 40, throughSeq: 6 },
    });
    assert.ok(c.snapshotId);
    assert.equal(await store.sessions.canUndoCompaction(s.id), true);
    let loaded = await store.sessions.load(s.id);
    assert.equal(loaded.snapshot?.id, c.snapshotId);
    assert.deepEqual(texts(loaded.tail.map((m) => m.message)), texts(turnMessages(3)));
    assert.equal(loaded.lastSeq, 8);
    loaded = await store.sessions.undoLastCompaction(s.id);
    assert.equal(loaded.tail.length, 8, 'back to the whole transcript');
    assert.deepEqual(loaded.snapshot?.messages, []);
    assert.equal((await store.sessions.transcript(s.id)).length, 8, 'nothing was deleted');
    // The panel disables Undo now: a second undo would fail ("There is no compaction to undo").
    assert.equal(await store.sessions.canUndoCompaction(s.id), false);
    await assert.rejects(store.sessions.undoLastCompaction(s.id), /no compaction to undo/);
  });

  it('saves, lists and restores named snapshots (reference 004) without clearing context', async () => {
    const s = await store.sessions.create();
    await store.sessions.appendTurn(s.id, [user('one', 100), assistant('two', 200)]);
    const snap = await store.sessions.saveSnapshot(s.id, {
      description: 'auth refactor',
      summary: 'JWT done',
      messages: [user('one', 100), assistant('two', 200)],
      tokens: 12,
    });
    assert.deepEqual(
      [snap.kind, snap.description, snap.summary, snap.messageCount, snap.windowStart, snap.windowEnd, snap.tokens],
      ['named', 'auth refactor', 'JWT done', 2, 100, 200, 12],
    );
    assert.equal((await store.sessions.load(s.id)).snapshot, undefined, 'a named snapshot is not the resume view');
    await store.sessions.appendTurn(s.id, turnMessages(5));
    assert.deepEqual(
      (await store.sessions.listSnapshots(s.id)).map((x) => x.id),
      [snap.id],
    );
    const restored = await store.sessions.restoreSnapshot(s.id, snap.id);
    assert.equal(restored.kind, 'restore');
    assert.equal(restored.throughSeq, 4);
    await store.sessions.appendTurn(s.id, [user('after restore')]);
    const view = await store.sessions.contextView(s.id);
    assert.deepEqual(texts(view.messages), ['one', 'two', 'after restore']);
    assert.equal((await store.sessions.transcript(s.id)).length, 5);
  });

  it('clear advances the marker and deletes nothing; the rolling window filters by time', async () => {
    const s = await store.sessions.create();
    const hour = 3_600_000;
    const t0 = 1_800_000_000_000;
    await store.sessions.appendTurn(s.id, [user('old')], { at: t0 });
    await store.sessions.appendTurn(s.id, [user('recent')], { at: t0 + 10 * hour });
    let view = await store.sessions.contextView(s.id, { now: t0 + 11 * hour, rollingWindowMs: 2 * hour });
    assert.deepEqual(texts(view.messages), ['recent']);
    view = await store.sessions.contextView(s.id, { now: t0 + 11 * hour });
    assert.deepEqual(texts(view.messages), ['old', 'recent'], 'no window: everything');
    const m1 = await store.sessions.clear(s.id, t0 + 11 * hour);
    assert.deepEqual(m1, { clearedAt: t0 + 11 * hour, afterSeq: 2 });
    await store.sessions.appendTurn(s.id, [user('after clear')], { at: t0 + 12 * hour });
    view = await store.sessions.contextView(s.id, { now: t0 + 12 * hour, rollingWindowMs: 24 * hour });
    assert.deepEqual(texts(view.messages), ['after clear'], 'the later of clear and window wins');
    await store.sessions.appendTurn(s.id, [user('later')], { at: t0 + 13 * hour });
    await store.sessions.clear(s.id, t0 + 13 * hour);
    await store.sessions.appendTurn(s.id, [user('latest')], { at: t0 + 14 * hour });
    view = await store.sessions.contextView(s.id, { now: t0 + 14 * hour });
    assert.deepEqual(texts(view.messages), ['latest'], 'the most recent clear is used');
    assert.equal((await store.sessions.transcript(s.id)).length, 5, 'clear deletes nothing');
  });

  it('a rolling window never starts with a tool result whose call fell out of it', async () => {
    const s = await store.sessions.create();
    const t0 = 1_800_000_000_000;
    const calling = assistant('calling', t0);
    calling.content.push({ type: 'toolCall', id: 'call_1', name: 'run_command', arguments: {} });
    await store.sessions.appendTurn(s.id, [user('run it', t0), calling], { at: t0 });
    await store.sessions.appendTurn(s.id, [toolResult('output', undefined, t0 + 100)], { at: t0 + 100 });
    await store.sessions.appendTurn(s.id, [user('next', t0 + 200)], { at: t0 + 200 });
    const view = await store.sessions.contextView(s.id, { now: t0 + 1000, rollingWindowMs: 950 }); // cutoff t0 + 50
    assert.deepEqual(texts(view.messages), ['next']);
    assert.deepEqual(texts((await store.sessions.contextView(s.id, { now: t0 + 1000 })).messages), ['run it', 'calling', 'output', 'next']);
  });

  it('keeps pins', async () => {
    const s = await store.sessions.create();
    const p1 = await store.sessions.pin(s.id, 'always run tests');
    const p2 = await store.sessions.pin(s.id, 'api is v2', 7);
    await store.sessions.unpin(s.id, p1.id);
    assert.deepEqual(await store.sessions.pins(s.id), [p2]);
  });

  it('keeps working when more sessions are used than stay open', async () => {
    await store.close();
    store = await open(root, { maxOpenSessions: 2 });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await store.sessions.create(`s${i}`)).id);
    for (let round = 0; round < 3; round++) {
      for (const id of ids) await store.sessions.appendTurn(id, turnMessages(round));
    }
    for (const id of ids) assert.equal((await store.sessions.transcript(id)).length, 6);
    assert.ok(store.sessions.list().every((s) => s.messageCount === 6));
  });

  it('reads a whole transcript once without closing the sessions in use (a search over every session)', async () => {
    await store.close();
    store = await open(root, { maxOpenSessions: 1 });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await store.sessions.create(`s${i}`)).id);
    for (const id of ids) await store.sessions.appendTurn(id, turnMessages(0));
    await store.sessions.appendTurn(ids[0], turnMessages(1)); // the session in use
    const live = (store.sessions as unknown as { sessions: { peek(id: string): unknown } }).sessions;
    assert.ok(live.peek(ids[0]), 'the session in use is open');
    for (const id of ids.slice(1)) assert.equal((await store.sessions.transcriptOnce(id)).length, 2);
    assert.ok(live.peek(ids[0]), 'reading the others left it open');
    assert.equal(live.peek(ids[1]), undefined, 'a session read once is not kept open');
    assert.equal((await store.sessions.transcriptOnce(ids[0])).length, 4, 'the open session is read from its open database');
  });
});
