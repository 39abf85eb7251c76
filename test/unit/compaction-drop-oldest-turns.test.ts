import assert from 'node:assert/strict';
import { dropOldestTurns } from '../../src/context/compaction';
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from '../../src/providers/types';
import { danglingCalls, textOf } from '../fixtures/agent/harness';

const u = (text: string): UserMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 0 });
const a = (text: string, calls: string[] = []): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }, ...calls.map((id) => ({ type: 'toolCall' as const, id, name: 'read_file', arguments: {} }))],
  provider: 'anthropic',
  model: 'm',
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  stopReason: calls.length ? 'toolUse' : 'end',
  timestamp: 0,
});
const r = (id: string): ToolResultMessage => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'read_file',
  content: [{ type: 'text', text: `result ${id}` }],
  isError: false,
  timestamp: 0,
});
const ten = () => 10;

describe('fallback compaction: drop the oldest turns at safe boundaries', () => {
  it('keeps the newest whole turns that fit, with a note in front', () => {
    const view: Message[] = [u('t1'), a('x', ['c1']), r('c1'), a('y'), u('t2'), a('z', ['c2']), r('c2'), a('w'), u('t3'), a('v')];
    const out = dropOldestTurns(view, ten, 60);
    assert.equal(out.dropped, 4);
    assert.deepEqual(out.messages.slice(1), view.slice(5));
    assert.equal(out.messages[0].role, 'user');
    assert.match(textOf(out.messages[0]), /^\[4 earlier messages were removed from the context to free space\.\]t2$/);
    assert.deepEqual(danglingCalls(out.messages), []);
  });

  it('never separates a call from its result', () => {
    const view: Message[] = [u('t1'), a('x', ['c1', 'c2']), r('c1'), r('c2'), a('y'), u('t2'), a('z')];
    for (let target = 0; target <= 80; target += 5) {
      const out = dropOldestTurns(view, ten, target);
      assert.deepEqual(danglingCalls(out.messages), [], `target ${target}`);
      assert.ok(
        out.messages.some((m) => m.role === 'user'),
        'a user message is always kept',
      );
    }
  });

  it('cuts inside a single huge turn, keeping its user message and the newest steps', () => {
    const view: Message[] = [u('task')];
    for (let i = 0; i < 10; i++) view.push(a(`step ${i}`, [`c${i}`]), r(`c${i}`));
    const out = dropOldestTurns(view, ten, 50);
    assert.equal(out.messages[0].role, 'user');
    assert.match(textOf(out.messages[0]), /task$/);
    assert.ok(out.messages.length <= 5);
    assert.equal(out.messages[1].role, 'assistant');
    assert.deepEqual(out.messages.slice(-2), view.slice(-2));
    assert.deepEqual(danglingCalls(out.messages), []);
  });

  it('replaces an earlier note instead of stacking notes', () => {
    const view: Message[] = [u('task')];
    for (let i = 0; i < 10; i++) view.push(a(`step ${i}`, [`c${i}`]), r(`c${i}`));
    const once = dropOldestTurns(view, ten, 70).messages;
    const twice = dropOldestTurns(once, ten, 40).messages;
    assert.equal((twice[0] as UserMessage).content.length, 2);
    assert.match(textOf(twice[0]), /^\[\d+ earlier messages were removed[^\]]*\]task$/);
  });

  it('returns the view unchanged when nothing can be dropped', () => {
    const view: Message[] = [u('only')];
    const out = dropOldestTurns(view, () => 1000, 10);
    assert.equal(out.dropped, 0);
    assert.deepEqual(out.messages, view);
  });
});
