import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { readFileTool, request, run, toolResult, user } from '../fixtures/fake-provider/factories';

describe('provider: Anthropic streaming against the fake server', () => {
  let server: FakeProvider;
  let provider: AnthropicProvider;
  before(async () => {
    server = await startFakeProvider();
    provider = new AnthropicProvider({ apiKey: 'sk-ant-test-key-123456', baseUrl: server.baseUrl });
  });
  after(() => server.close());

  it('streams text deltas and ends with the whole text and usage', async () => {
    server.script.push({ text: 'Hello from the fake Anthropic server, streamed in pieces.', chunkChars: 5 });
    const { events, message } = await run(provider, request([user('hi')]));
    assert.equal(events[0].type, 'start');
    const deltas = events.filter((e) => e.type === 'text_delta');
    assert.ok(deltas.length > 5, 'text arrives in several deltas');
    assert.equal(
      deltas.map((d) => (d.type === 'text_delta' ? d.delta : '')).join(''),
      'Hello from the fake Anthropic server, streamed in pieces.',
    );
    assert.equal(message.stopReason, 'end');
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hello from the fake Anthropic server, streamed in pieces.' }]);
    assert.equal(message.provider, 'anthropic');
    assert.ok(message.usage.input > 0 && message.usage.output > 0);
    assert.equal(events.filter((e) => e.type === 'done').length, 1);
  });

  it('streams parallel tool calls with parsed arguments and stopReason toolUse', async () => {
    server.script.push({
      text: 'Reading both.',
      toolCalls: [
        { id: 'toolu_a', name: 'read_file', arguments: { path: 'a.ts' } },
        { id: 'toolu_b', name: 'read_file', arguments: { path: 'b.ts' } },
      ],
    });
    const { events, message } = await run(provider, request([user('read a and b')], { tools: [readFileTool] }));
    assert.deepEqual(
      events.filter((e) => e.type === 'toolcall_start').map((e) => (e.type === 'toolcall_start' ? e.id : '')),
      ['toolu_a', 'toolu_b'],
    );
    assert.equal(message.stopReason, 'toolUse');
    const calls = message.content.filter((p) => p.type === 'toolCall');
    assert.deepEqual(calls, [
      { type: 'toolCall', id: 'toolu_a', name: 'read_file', arguments: { path: 'a.ts' } },
      { type: 'toolCall', id: 'toolu_b', name: 'read_file', arguments: { path: 'b.ts' } },
    ]);
    assert.deepEqual(server.requests.at(-1)!.tools, ['read_file']);
  });

  it('keeps unparsable tool arguments raw so the tool layer can report them', async () => {
    server.script.push({ toolCalls: [{ id: 'toolu_x', name: 'read_file', arguments: '{"path": "a.ts"' }] });
    const { message } = await run(provider, request([user('go')], { tools: [readFileTool] }));
    const call = message.content.find((p) => p.type === 'toolCall');
    assert.deepEqual(call, { type: 'toolCall', id: 'toolu_x', name: 'read_file', arguments: {}, rawArguments: '{"path": "a.ts"' });
  });

  it('streams thinking with its signature and sends it back verbatim on the next turn', async () => {
    server.script.push({ thinking: 'Let me think about this.', signature: 'sig-abc', redactedThinking: 'opaque==', text: 'Answer.' });
    const first = await run(
      provider,
      request([user('think')], { thinking: { mode: 'budget', budgetTokens: 2048 }, maxOutputTokens: 4096 }),
    );
    assert.ok(first.events.some((e) => e.type === 'reasoning_delta'));
    assert.deepEqual(first.message.content.slice(0, 2), [
      { type: 'reasoning', text: 'Let me think about this.', signature: 'sig-abc' },
      { type: 'reasoning', text: '', redactedData: 'opaque==' },
    ]);
    const sent = server.requests.at(-1)!.body;
    assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 2048 });

    await run(
      provider,
      request([user('think'), first.message, user('again')], { thinking: { mode: 'budget', budgetTokens: 2048 }, maxOutputTokens: 4096 }),
    );
    const messages = server.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown[] }>;
    assert.deepEqual(messages[1].content.slice(0, 2), [
      { type: 'thinking', thinking: 'Let me think about this.', signature: 'sig-abc' },
      { type: 'redacted_thinking', data: 'opaque==' },
    ]);
  });

  it('sends tool results back as tool_result blocks with is_error', async () => {
    server.script.push({ toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'x' } }] });
    const first = await run(provider, request([user('go')], { tools: [readFileTool] }));
    await run(
      provider,
      request([user('go'), first.message, toolResult('toolu_1', 'read_file', 'ENOENT', true)], { tools: [readFileTool] }),
    );
    const messages = server.requests.at(-1)!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.equal(messages[2].role, 'user');
    assert.deepEqual(messages[2].content[0], {
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [{ type: 'text', text: 'ENOENT' }],
      is_error: true,
    });
  });
});
