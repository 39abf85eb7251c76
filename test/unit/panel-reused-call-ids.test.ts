import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { messagesToItems } from '../../src/panel/transcript-items';
import type { ChatItem } from '../../src/protocol/view-models';
import { assistant, call, result, user } from './panel-factories';

const cards = (items: readonly ChatItem[]) =>
  items.flatMap((i) =>
    i.kind === 'tool' ? [`${i.name} ${i.summary} ${i.status}: ${i.output}`] : i.kind === 'approval' ? [`approval ${i.state}`] : [],
  );

/**
 * A server that names every call `call_0`: each card keeps its own call and result, live and in a
 * stored transcript, and every item has an id of its own.
 */
describe('panel: tool cards when a server reuses call ids', () => {
  const run = call('call_0', 'run_command', { command: 'npm test' });
  const write = call('call_0', 'write_file', { path: 'a.txt', content: 'x' });

  it('a stored transcript: each result on its own call’s card, approvals after them', () => {
    const items = messagesToItems([
      user('test'),
      assistant('', {}, [run]),
      result('call_0', 'passed', { toolName: 'run_command' }),
      user('write'),
      assistant('', {}, [write]),
      result('call_0', 'rejected', {
        toolName: 'write_file',
        isError: true,
        decision: 'rejected',
        approval: {
          request: { kind: 'edit', path: 'a.txt', isNew: true, added: 1, removed: 0 },
          decision: { approved: false, reason: 'no' },
        },
      }),
    ]);
    assert.deepEqual(cards(items), ['run_command npm test done: passed', 'write_file a.txt rejected: rejected', 'approval rejected']);
    assert.equal(new Set(items.map((i) => i.id)).size, items.length, 'no id twice');
  });

  it('one answer whose calls share an id: answered in order', () => {
    const items = messagesToItems([
      assistant('', {}, [run, write]),
      result('call_0', 'passed', { toolName: 'run_command' }),
      result('call_0', 'written', { toolName: 'write_file' }),
    ]);
    assert.deepEqual(cards(items), ['run_command npm test done: passed', 'write_file a.txt done: written']);
  });

  it('live: the second call_0 gets a card of its own, the first keeps its result', () => {
    const p = new ChatPresenter(() => undefined);
    const events: AgentEvent[] = [
      { type: 'message_start', role: 'assistant' },
      { type: 'message_delta', kind: 'toolCall', toolCallId: 'call_0', name: 'run_command' },
      { type: 'message_end', message: assistant('', {}, [run]) },
      { type: 'tool_start', call: run },
      { type: 'tool_end', call: run, result: result('call_0', 'passed', { toolName: 'run_command' }), offloaded: false },
      { type: 'message_start', role: 'assistant' },
      { type: 'message_delta', kind: 'toolCall', toolCallId: 'call_0', name: 'write_file' },
      { type: 'message_end', message: assistant('', {}, [write]) },
      { type: 'tool_start', call: write },
      { type: 'tool_end', call: write, result: result('call_0', 'written', { toolName: 'write_file' }), offloaded: false },
    ];
    for (const e of events) p.handle(e);
    assert.deepEqual(cards(p.transcript.items), ['run_command npm test done: passed', 'write_file a.txt done: written']);
  });
});
