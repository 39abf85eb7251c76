import assert from 'node:assert/strict';
import { applyClearPlan, CLEARED_PREFIX, isCleared, planClearToolResults } from '../../src/context/compaction';
import type { Message } from '../../src/providers/types';
import { a, filler, r, session, textOf, tokensOf, u } from '../fixtures/compaction/factories';

describe('compaction step a: clearing old tool results', () => {
  it('clears all but the newest results and says which ones must be stored first', () => {
    const view = session(6, 2000);
    const plan = planClearToolResults(view, { keepRecent: 2, keepTokens: 10_000, tokensOf });
    assert.deepEqual(
      plan.items.map((i) => i.toolCallId),
      ['c0', 'c1', 'c2', 'c3'],
    );
    for (const item of plan.items) {
      assert.equal(item.refId, undefined);
      assert.equal(item.store, textOf(view[item.index]), 'the whole output is handed over for storing');
    }
    assert.equal(
      plan.tokens,
      plan.items.reduce((s, i) => s + i.tokens, 0),
    );
  });

  it('keeps fewer recent results when they exceed the token allowance', () => {
    const view = session(6, 2000);
    const plan = planClearToolResults(view, { keepRecent: 5, keepTokens: 600, tokensOf });
    assert.deepEqual(
      plan.items.map((i) => i.toolCallId),
      ['c0', 'c1', 'c2', 'c3', 'c4'],
    );
  });

  it('replaces cleared results by stubs that keep the ref id, leaving pairs and order intact', () => {
    const view = session(4, 2000);
    const plan = planClearToolResults(view, { keepRecent: 1, keepTokens: 10_000, tokensOf });
    const refIds = new Map(plan.items.map((i, n) => [i.index, `res_${n}`] as const));
    const out = applyClearPlan(view, plan, refIds);
    assert.equal(out.cleared, 3);
    assert.equal(out.messages.length, view.length);
    for (const item of plan.items) {
      const m = out.messages[item.index];
      assert.ok(m.role === 'toolResult' && isCleared(m));
      assert.equal(m.refId, refIds.get(item.index));
      assert.equal(m.toolCallId, item.toolCallId);
      assert.match(textOf(m), new RegExp(`read_result ref_id="${refIds.get(item.index)}"`));
    }
    assert.ok(tokensOf(out.messages[2]) < 60);
    assert.equal(out.messages[14], view[14], 'the newest result is untouched');
    assert.match(textOf(view[2]), /^result 0/, 'the input is not modified');
  });

  it('reuses the ref id of an already offloaded result and never clears a stub twice', () => {
    const stub = `[Tool result stored — 48,231 bytes from "run_command". First lines: ${filler(400, 'x')}] read_result ref_id="res_old"`;
    const view: Message[] = [
      u('go'),
      a('', ['c1']),
      r('c1', stub, { refId: 'res_old', name: 'run_command' }),
      a('', ['c2']),
      r('c2', filler(800, 'new')),
    ];
    const plan = planClearToolResults(view, { keepRecent: 1, keepTokens: 10_000, tokensOf });
    assert.equal(plan.items.length, 1);
    assert.equal(plan.items[0].refId, 'res_old');
    assert.equal(plan.items[0].store, undefined, 'nothing to store again');
    const once = applyClearPlan(view, plan).messages;
    assert.ok(textOf(once[2]).startsWith(CLEARED_PREFIX));
    assert.equal(planClearToolResults(once, { keepRecent: 1, keepTokens: 10_000, tokensOf }).items.length, 0);
  });

  it('keeps a result whose store failed (no ref id) rather than losing it', () => {
    const view = session(3, 2000);
    const plan = planClearToolResults(view, { keepRecent: 1, keepTokens: 10_000, tokensOf });
    const out = applyClearPlan(view, plan, new Map([[plan.items[0].index, 'res_a']]));
    assert.equal(out.cleared, 1);
    assert.equal(out.messages[plan.items[1].index], view[plan.items[1].index]);
  });

  it('leaves small results alone', () => {
    const view: Message[] = [u('go'), a('', ['c1']), r('c1', 'ok'), a('', ['c2']), r('c2', 'ok too')];
    assert.equal(planClearToolResults(view, { keepRecent: 0, keepTokens: 0, tokensOf }).items.length, 0);
  });
});
