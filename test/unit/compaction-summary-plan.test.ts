import assert from 'node:assert/strict';
import { historyMessage, planSummary } from '../../src/context/compaction';
import { safeCuts } from '../../src/context/turns';
import type { Message } from '../../src/providers/types';
import { danglingCalls } from '../fixtures/agent/harness';
import { a, r, session, tokensOf, total, u } from '../fixtures/compaction/factories';

describe('compaction step b planning: where to cut for a summary', () => {
  it('keeps the newest turns that fit beside the reserve, cut at a turn start', () => {
    const view = session(10, 2000);
    const plan = planSummary(view, { targetTokens: 2500, tokensOf, reserveTokens: 500 });
    assert.ok(plan);
    assert.equal(view[plan.cut].role, 'user');
    assert.ok(plan.tailTokens <= 2000, `tail ${plan.tailTokens}`);
    assert.deepEqual(plan.tail, view.slice(plan.cut));
    assert.deepEqual(plan.head, view.slice(0, plan.cut));
    assert.equal(plan.headTokens + plan.tailTokens, total(view));
    assert.deepEqual(danglingCalls(plan.tail), []);
  });

  it('honours the rolling window: at most N raw turns', () => {
    const view = session(10, 200);
    const plan = planSummary(view, { targetTokens: 100_000, tokensOf, reserveTokens: 0, keepTurns: 3 });
    assert.ok(plan);
    assert.equal(plan.tail.filter((m) => m.role === 'user').length, 3);
  });

  it('treats an earlier history message as the summary to update, not as history to re-read', () => {
    const prev = historyMessage({ summary: 'Earlier: set up the repo.', pins: [], instructions: ['use tabs'] }, 1);
    const view: Message[] = [prev, ...session(6, 2000)];
    const plan = planSummary(view, { targetTokens: 1500, tokensOf, reserveTokens: 300 });
    assert.ok(plan);
    assert.equal(plan.previous?.summary, 'Earlier: set up the repo.');
    assert.deepEqual(plan.previous?.instructions, ['use tabs']);
    assert.ok(!plan.head.includes(prev));
  });

  it('cuts inside a single huge turn at a safe cut, keeping its user message in front', () => {
    const view: Message[] = [u('the one task')];
    for (let i = 0; i < 12; i++) view.push(a(`step ${i}`, [`c${i}`]), r(`c${i}`, 'x'.repeat(2000)));
    const plan = planSummary(view, { targetTokens: 2000, tokensOf, reserveTokens: 500 });
    assert.ok(plan);
    assert.equal(plan.tail[0], view[0], 'the active request stays verbatim');
    assert.ok(safeCuts(view)[plan.cut]);
    assert.deepEqual(danglingCalls(plan.tail), []);
    assert.ok(plan.head.length > 2);
  });

  it('returns undefined when there is nothing to summarize', () => {
    assert.equal(planSummary([u('hi')], { targetTokens: 10, tokensOf, reserveTokens: 0 }), undefined);
    assert.equal(planSummary(session(2, 10), { targetTokens: 100_000, tokensOf, reserveTokens: 0 }), undefined);
  });
});
