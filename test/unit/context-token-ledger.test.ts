import assert from 'node:assert/strict';
import { loadEncoding } from '../../src/context/encoder';
import { estimateMessage, type MessageCount, type TextCount } from '../../src/context/message-tokens';
import { countInFamily } from '../../src/context/worker-count';
import type { TokenizerFamily } from '../../src/context/models';
import { TokenLedger } from '../../src/context/token-ledger';
import type { TextCounter } from '../../src/context/token-worker-client';
import { assistant, user } from '../fixtures/context/factories';

/** An in-process TextCounter over the worker's real count, recording every request. */
class InProcessCounter implements TextCounter {
  isReady = true;
  calls: string[][] = [];
  constructor(private readonly count: (t: string, family: TokenizerFamily) => TextCount) {}
  async countTexts(family: TokenizerFamily, texts: readonly string[]): Promise<TextCount[]> {
    this.calls.push([...texts]);
    await new Promise((r) => setImmediate(r));
    return texts.map((t) => this.count(t, family));
  }
}

const settle = () => new Promise((r) => setTimeout(r, 5));

describe('context token ledger: memo', () => {
  let counter: InProcessCounter;
  beforeEach(async () => {
    const { counter: exact } = await loadEncoding('o200k_base');
    counter = new InProcessCounter((t, family) => countInFamily(t, family, exact));
  });

  it('returns a byte estimate at once, then the tokenizer count, and fires onDidCount', async () => {
    const ledger = new TokenLedger(counter);
    const fired: MessageCount[] = [];
    ledger.onDidCount((c) => fired.push(c));
    const m = user('hello world, this is a message that will be counted');
    const first = ledger.count(m, 'o200k');
    assert.equal(first.exact, false);
    await settle();
    const second = ledger.count(m, 'o200k');
    assert.equal(second.exact, true);
    assert.equal(fired.length, 1);
    assert.equal(fired[0].hash, first.hash);
    ledger.dispose();
  });

  it('does not recount a message it has seen (by object or by content)', async () => {
    const ledger = new TokenLedger(counter);
    const m = user('same content');
    await ledger.countExact(m, 'o200k');
    ledger.count(m, 'o200k');
    ledger.count(user('same content', 999), 'o200k');
    await settle();
    assert.equal(counter.calls.length, 1);
  });

  it('requests a count only once while it is in flight', async () => {
    const ledger = new TokenLedger(counter);
    const m = assistant('x'.repeat(100));
    for (let i = 0; i < 10; i++) ledger.count(m, 'o200k');
    await settle();
    assert.equal(counter.calls.length, 1);
  });

  it('uses seeded (persisted) counts without counting again', async () => {
    const ledger = new TokenLedger(counter);
    const m = user('persisted');
    const persisted: MessageCount = { ...estimateMessage(m, 'claude'), tokens: 1234, exact: true };
    ledger.seed([persisted]);
    assert.equal(ledger.count(m, 'claude').tokens, 1234);
    await settle();
    assert.equal(counter.calls.length, 0);
  });

  it('keeps separate counts per family', async () => {
    const ledger = new TokenLedger(counter);
    const m = user('The quick brown fox jumps over the lazy dog. '.repeat(30));
    const o = await ledger.countExact(m, 'o200k');
    const c = await ledger.countExact(m, 'claude');
    assert.ok(c.tokens > o.tokens);
  });

  it('totals messages and reports how many are still estimates', async () => {
    const ledger = new TokenLedger(counter);
    const msgs = [user('a b c'), assistant('d e f'), user('g h i')];
    const before = ledger.total(msgs, 'o200k');
    assert.equal(before.pending, 3);
    await settle();
    const after = ledger.total(msgs, 'o200k');
    assert.equal(after.pending, 0);
    assert.equal(after.exact, true);
  });

  it('stays on estimates without a counter, and when the counter fails', async () => {
    const none = new TokenLedger();
    assert.equal(none.count(user('x'), 'o200k').exact, false);
    const failing: TextCounter = { isReady: true, countTexts: () => Promise.reject(new Error('boom')) };
    const ledger = new TokenLedger(failing);
    const m = user('y');
    const c = await ledger.countExact(m, 'o200k');
    assert.equal(c.exact, false);
    assert.equal(ledger.count(m, 'o200k').exact, false);
  });

  it('counts free text without message framing', async () => {
    const ledger = new TokenLedger(counter);
    ledger.countText('You are a helpful coding agent.', 'o200k');
    await settle();
    const c = ledger.countText('You are a helpful coding agent.', 'o200k');
    assert.equal(c.exact, true);
    assert.equal(c.tokens, 7, 'the tokenizer count as it is: no byte floor under an exact count');
  });
});
