import { strict as assert } from 'node:assert';
import { storePersistence } from '../../src/agent/store-persistence';
import type { TokenizerFamily } from '../../src/context/models';
import type { Message } from '../../src/providers/types';
import { TokenLedger } from '../../src/context/token-ledger';
import { cleanup, open, tempRoot, toolResult, turnMessages } from '../fixtures/store/helpers';

describe('token counts stored with each message', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

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
    resumed.seed(view.counts.map((c) => ({ ...c, family: c.family as TokenizerFamily })));
    for (const [i, m] of view.messages.entries()) {
      const after = resumed.count(m, family);
      assert.deepEqual([after.tokens, after.exact, after.hash], [7001 + i, true, count(messages[i]).hash]);
    }
  });
});
