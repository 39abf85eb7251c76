import assert from 'node:assert/strict';
import { createHarness, danglingCalls, textOf, type Harness } from '../fixtures/agent/harness';

describe('agent loop: tool calls and results stay paired', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('runs tool calls, feeds results back and ends with the final answer', async () => {
    h = await createHarness({ files: { 'a.txt': 'alpha\nbeta\n', 'src/b.ts': 'export const b = 1;\n' } });
    h.server.script.push(
      {
        text: 'Let me look.',
        toolCalls: [
          { id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } },
          { id: 'c2', name: 'list_files', arguments: { glob: '**/*' } },
        ],
      },
      { toolCalls: [{ id: 'c3', name: 'read_file', arguments: { path: 'src/b.ts' } }] },
      { text: 'Both files read.' },
    );
    const r = await h.turn('Read my files');
    assert.equal(r.reason, 'done');
    assert.equal(h.server.requests.length, 3);
    assert.deepEqual(danglingCalls(h.view), []);
    assert.deepEqual(
      h.view.map((m) => m.role),
      ['user', 'assistant', 'toolResult', 'toolResult', 'assistant', 'toolResult', 'assistant'],
    );
    assert.equal(textOf(h.view[6]), 'Both files read.');
    // The model saw the file content in its next request.
    assert.match(JSON.stringify(h.server.requests[1].body.messages), /alpha\\n2\\tbeta/);
    assert.match(JSON.stringify(h.server.requests[2].body.messages), /export const b = 1/);
  });

  it('persists each call together with its results, the prompt first', async () => {
    h = await createHarness({ files: { 'a.txt': 'alpha' } });
    h.server.script.push({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'done' });
    await h.turn('go');
    assert.deepEqual(
      h.persisted.map((p) => [p.startsTurn, p.messages.map((m) => m.role)]),
      [
        [true, ['user']],
        [false, ['assistant', 'toolResult']],
        [false, ['assistant']],
      ],
    );
  });

  it('emits the events of every step in order', async () => {
    h = await createHarness({ files: { 'a.txt': 'alpha' } });
    h.server.script.push(
      { text: 'Reading.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] },
      { text: 'done' },
    );
    const r = await h.turn('go');
    const kinds = h.events.map((e) => e.type).filter((t) => t !== 'context_usage' && t !== 'message_delta');
    assert.deepEqual(kinds, [
      'turn_start',
      'message_start',
      'message_end',
      'message_start',
      'message_end',
      'usage',
      'tool_start',
      'tool_end',
      'message_start',
      'message_end',
      'usage',
      'turn_end',
    ]);
    assert.ok(h.events.some((e) => e.type === 'message_delta' && e.kind === 'text' && e.delta.length > 0));
    assert.ok(h.events.some((e) => e.type === 'message_delta' && e.kind === 'toolCall' && e.name === 'read_file'));
    const usage = h.events.filter((e) => e.type === 'context_usage');
    assert.ok(usage.length >= 4, 'context usage after the prompt, each message and each tool result');
    const last = usage[usage.length - 1];
    assert.ok(last.type === 'context_usage' && last.usage.used > 0 && last.usage.budget !== undefined);
    const end = h.events[h.events.length - 1];
    assert.ok(end.type === 'turn_end' && end.turnId === r.turnId && end.messages.length === 4);
  });

  it('keeps the view across turns', async () => {
    h = await createHarness();
    h.server.script.push({ text: 'first answer' }, { text: 'second answer' });
    await h.turn('one');
    await h.turn('two');
    assert.deepEqual(
      h.view.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.match(JSON.stringify(h.server.requests[1].body.messages), /first answer/);
  });

  it('works the same over the OpenAI protocol (the Responses API)', async () => {
    h = await createHarness({ protocol: 'openai', files: { 'a.txt': 'alpha' } });
    h.server.script.push({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'done' });
    const r = await h.turn('go');
    assert.equal(r.reason, 'done');
    assert.equal(h.server.requests[0].protocol, 'responses');
    assert.deepEqual(
      h.view.map((m) => m.role),
      ['user', 'assistant', 'toolResult', 'assistant'],
    );
    assert.match(JSON.stringify(h.server.requests[1].body.input), /1\\talpha/);
    assert.deepEqual(danglingCalls(h.view), []);
  });
});
