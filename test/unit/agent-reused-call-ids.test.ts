import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { safeCuts } from '../../src/context/turns';
import type { Message } from '../../src/providers/types';
import { createHarness, danglingCalls, type Harness } from '../fixtures/agent/harness';

/** The calls of the request's assistant messages and the tool messages after them, as the OpenAI wire carries them. */
function wirePairs(body: Record<string, unknown>): Array<{ id: string; name?: string; answered?: string }> {
  const out: Array<{ id: string; name?: string; answered?: string }> = [];
  for (const m of body.messages as Array<Record<string, unknown>>) {
    if (m.role === 'assistant')
      for (const c of (m.tool_calls as Array<{ id: string; function: { name: string } }> | undefined) ?? [])
        out.push({ id: c.id, name: c.function.name });
    if (m.role === 'tool') {
      const call = out.find((c) => c.id === m.tool_call_id && c.answered === undefined);
      if (call) call.answered = String(m.content);
    }
  }
  return out;
}

/**
 * Some OpenAI-compatible servers number calls per answer (every answer's first call is `call_0`) or give
 * every call of one answer the same id. The loop keeps each call apart: each gets an id no other call of
 * the conversation has, the request pairs every result with its own call, and the events say which.
 */
describe('agent loop: a server that reuses tool call ids', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('gives a repeated id one of its own, so each result answers its own call in the next request', async () => {
    h = await createHarness({ protocol: 'openai-compatible', counting: 'estimates', files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' } });
    h.server.script.push(
      { toolCalls: [{ id: 'call_0', name: 'read_file', arguments: { path: 'a.txt' } }] },
      {
        toolCalls: [
          { id: 'call_0', name: 'list_files', arguments: { glob: '*.txt' } },
          { id: 'call_0', name: 'read_file', arguments: { path: 'b.txt' } },
        ],
      },
      { text: 'Done.' },
    );
    const r = await h.turn('Read both files');
    assert.equal(r.reason, 'done');
    assert.deepEqual(danglingCalls(h.view), []);
    const ids = h.view.flatMap((m) => (m.role === 'assistant' ? m.content.flatMap((p) => (p.type === 'toolCall' ? [p.id] : [])) : []));
    assert.deepEqual(ids, ['call_0', 'call_0_2', 'call_0_3'], 'a repeated id is renamed, the first kept');

    const last = wirePairs(h.server.requests[2].body);
    assert.deepEqual(
      last.map((c) => c.id),
      ['call_0', 'call_0_2', 'call_0_3'],
      'no two calls of the request share an id',
    );
    assert.match(last[0].answered ?? '', /alpha/, 'read a.txt answered with a.txt');
    assert.match(last[1].answered ?? '', /a\.txt[\s\S]*b\.txt/, 'list_files answered with the listing');
    assert.match(last[2].answered ?? '', /beta/, 'read b.txt answered with b.txt');

    // The events name the ids the view keeps: the streamed call, its start and its end agree.
    const streamed = h.events.flatMap((e: AgentEvent) => (e.type === 'message_delta' && e.kind === 'toolCall' ? [e.toolCallId] : []));
    const ended = h.events.flatMap((e: AgentEvent) =>
      e.type === 'tool_end' ? [`${e.call.id}:${e.call.name}=${e.result.toolCallId}`] : [],
    );
    assert.deepEqual(streamed, ['call_0', 'call_0_2', 'call_0_3']);
    assert.deepEqual(ended, ['call_0:read_file=call_0', 'call_0_2:list_files=call_0_2', 'call_0_3:read_file=call_0_3']);
  });

  it('pairs a result with the latest call of its id, so an old turn can still be cut away', () => {
    const call = (id: string): Message => ({
      role: 'assistant',
      content: [{ type: 'toolCall', id, name: 'read_file', arguments: {} }],
      provider: 'openai-compatible',
      model: 'm',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'toolUse',
      timestamp: 1,
    });
    const result = (id: string): Message => ({
      role: 'toolResult',
      toolCallId: id,
      toolName: 'read_file',
      content: [],
      isError: false,
      timestamp: 1,
    });
    const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });
    const view = [user('one'), call('call_0'), result('call_0'), user('two'), call('call_0'), result('call_0')];
    assert.equal(safeCuts(view)[3], true, 'the second turn starts at a safe cut');
  });
});
