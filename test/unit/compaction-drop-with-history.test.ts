import assert from 'node:assert/strict';
import { dropWithHistory, historyMessage, isHistoryMessage, parseHistoryMessage } from '../../src/context/compaction';
import type { Message } from '../../src/providers/types';
import { danglingCalls } from '../fixtures/agent/harness';
import { a, r, session, textOf, tokensOf, total, u } from '../fixtures/compaction/factories';

describe('compaction step c: dropping turns behind a history message', () => {
  it('fits the target, carrying pins and the instructions of the dropped turns', () => {
    const view = session(30, 800, (i) => `instruction ${i}`);
    const before = structuredClone(view);
    const out = dropWithHistory(view, { pins: ['PIN'], target: 2000, tokensOf });
    assert.ok(out);
    assert.ok(total(out.messages) <= 2000, `${total(out.messages)}`);
    assert.ok(isHistoryMessage(out.messages[0]));
    const parts = parseHistoryMessage(out.messages[0])!;
    assert.equal(parts.summary, undefined);
    assert.deepEqual(parts.pins, ['PIN']);
    const sent = out.messages.map(textOf).join('\n');
    for (let i = 0; i < 30; i++) assert.ok(sent.includes(`instruction ${i}`), `instruction ${i}`);
    assert.equal(parts.instructions.filter((t) => t === 'instruction 29').length, 0, 'a kept instruction is not repeated');
    assert.deepEqual(danglingCalls(out.messages), []);
    assert.deepEqual(view, before, 'the input is not modified');
  });

  it('keeps an earlier summary and the user message of a single huge turn', () => {
    const prev = historyMessage({ summary: 'EARLIER', pins: [], instructions: ['old ask'] }, 1);
    const view: Message[] = [prev, u('the big task')];
    for (let i = 0; i < 20; i++) view.push(a(`step ${i}`, [`c${i}`]), r(`c${i}`, 'y'.repeat(1200)));
    const out = dropWithHistory(view, { pins: [], target: 1500, tokensOf });
    assert.ok(out);
    const parts = parseHistoryMessage(out.messages[0])!;
    assert.equal(parts.summary, 'EARLIER');
    assert.deepEqual(parts.instructions, ['old ask']);
    assert.match(textOf(out.messages[1]), /the big task$/);
    assert.ok(out.gone.includes(prev));
    assert.deepEqual(danglingCalls(out.messages), []);
    assert.ok(total(out.messages) <= 1500);
  });

  it('returns undefined when nothing can be dropped', () => {
    assert.equal(dropWithHistory([u('only')], { pins: [], target: 1, tokensOf }), undefined);
  });
});
