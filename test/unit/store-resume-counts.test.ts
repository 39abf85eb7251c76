import { strict as assert } from 'node:assert';
import { snapshotCounts, storePersistence } from '../../src/agent/store-persistence';
import type { TokenizerFamily } from '../../src/context/models';
import type { Message } from '../../src/providers/types';
import { isRepetitive, messageSampleText } from '../../src/context/estimate-band';
import { TokenLedger } from '../../src/context/token-ledger';
import { cleanup, open, tempRoot, toolResult, turnMessages } from '../fixtures/store/helpers';

describe('token counts stored with each message', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it("a compacted session's snapshot messages keep theirs, so the first meter after reopening it is exact", async () => {
    const family: TokenizerFamily = 'claude';
    const store = await open(root);
    const s = await store.sessions.create('compacted');
    await store.sessions.appendTurn(s.id, turnMessages(0));
    await store.sessions.appendTurn(s.id, turnMessages(1));
    const summary: Message = { role: 'user', content: [{ type: 'text', text: 'Summary of turn 0.' }], timestamp: 1 };
    const view = [summary, ...turnMessages(1)];
    const counting = new TokenLedger();
    const counts = view.map((m, i) => ({ ...counting.count(m, family), tokens: 9001 + i, exact: true }));
    await store.sessions.recordCompaction(s.id, {
      beforeTokens: 100,
      afterTokens: 50,
      beforeMessages: 4,
      afterMessages: 3,
      strategies: ['summary'],
      snapshot: { messages: view, counts: snapshotCounts(view, counts), throughSeq: 4 },
    });
    await store.close();

    const again = await open(root);
    const reopened = await again.sessions.contextView(s.id);
    await again.close();
    assert.equal(reopened.messages.length, 3);
    const ledger = new TokenLedger(); // no tokenizer: any message without its stored count stays an estimate
    ledger.seed(reopened.counts);
    const total = ledger.total(reopened.messages, family);
    assert.deepEqual([total.exact, total.pending, total.tokens], [true, 0, 9001 + 9002 + 9003]);
  });

  it('come back on resume and seed a ledger that then needs no recount', async () => {
    const family: TokenizerFamily = 'o200k';
    // Exact counts no estimator would produce, so only the stored ones can explain them on resume.
    const counting = new TokenLedger();
    const exactCounts = new Map<unknown, number>();
    const count = (m: Message) => ({ ...counting.count(m, family), tokens: exactCounts.get(m) ?? 0, exact: true });
    const store = await open(root);
    const s = await store.sessions.create('counts');
    const persist = storePersistence(store.sessions, s.id, count);
    const messages = [...turnMessages(0), toolResult('x'.repeat(3000))];
    messages.forEach((m, i) => exactCounts.set(m, 7001 + i));
    await persist.append(messages.slice(0, 2), { startsTurn: true });
    await persist.append(messages.slice(2), { startsTurn: false });
    await store.close();

    const again = await open(root);
    const view = await again.sessions.contextView(s.id);
    await again.close();
    assert.equal(view.counts.length, 3);
    const resumed = new TokenLedger();
    resumed.seed(view.counts);
    for (const [i, m] of view.messages.entries()) {
      const after = resumed.count(m, family);
      assert.deepEqual([after.tokens, after.exact, after.hash], [7001 + i, true, count(messages[i]).hash]);
    }
  });

  it('seed the resumed message objects themselves: the first meter hashes nothing', async () => {
    const family: TokenizerFamily = 'o200k';
    const store = await open(root);
    const s = await store.sessions.create('counts');
    // Stored hashes no message hashes to: only the seeded object can find its count.
    await store.sessions.appendTurn(s.id, turnMessages(0), {
      tokens: [11, 22],
      contentHashes: ['stored-a', 'stored-b'],
      tokenFamily: family,
      tokensExact: [true, true],
    });
    const view = await store.sessions.contextView(s.id);
    await store.close();
    const resumed = new TokenLedger();
    resumed.seed(view.counts);
    assert.deepEqual(resumed.total(view.messages, family), { tokens: 33, exact: true, pending: 0 });
    const copy = structuredClone(view.messages[0]);
    assert.equal(resumed.count(copy, family).exact, false, 'another object with the same content is hashed, and misses');
  });

  it('keep what each count is made of: its content class and whether it is a run of one character', async () => {
    const family: TokenizerFamily = 'o200k';
    const store = await open(root);
    const s = await store.sessions.create('classes');
    const ledger = new TokenLedger();
    const persist = storePersistence(store.sessions, s.id, (m) => ledger.count(m, family));
    const ruler = toolResult('='.repeat(3000));
    const prose = toolResult('Reading the configuration and checking every setting against the documentation. '.repeat(5));
    await persist.append([...turnMessages(0), ruler, prose], { startsTurn: true });
    const view = await store.sessions.contextView(s.id);
    await store.close();
    assert.deepEqual(
      view.counts.map((c) => [c.contentClass, c.repetitive]),
      view.messages.map((m) => [ledger.count(m, family).contentClass, isRepetitive(messageSampleText(m))]),
    );
    const resumed = new TokenLedger();
    resumed.seed([...view.counts, { hash: 'x', family, tokens: 1, exact: true, contentClass: 'from-a-later-version' }]);
    assert.deepEqual(
      [resumed.count(view.messages.at(-2)!, family).repetitive, resumed.count(view.messages.at(-1)!, family).repetitive],
      [true, false],
    );
    assert.equal(resumed.count(view.messages.at(-1)!, family).contentClass, ledger.count(prose, family).contentClass);
  });
});
