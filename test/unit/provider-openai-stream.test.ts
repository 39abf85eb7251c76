import assert from 'node:assert/strict';
import { OpenAIProvider } from '../../src/providers/openai';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { readFileTool, request, run, toolResult, user } from '../fixtures/fake-provider/factories';

describe('provider: OpenAI Chat Completions streaming against the fake server', () => {
  let server: FakeProvider;
  let openai: OpenAIProvider;
  before(async () => {
    server = await startFakeProvider();
    openai = new OpenAIProvider({ provider: 'openai', apiKey: 'sk-test-openai-key-000', baseUrl: server.openaiBaseUrl });
  });
  after(() => server.close());

  it('streams text and reports usage from include_usage', async () => {
    server.script.push({ text: 'Streaming text from the fake OpenAI server.', chunkChars: 4 });
    const { events, message } = await run(openai, request([user('hi')], { promptCacheKey: 'ses_1' }));
    assert.ok(events.filter((e) => e.type === 'text_delta').length > 5);
    assert.deepEqual(message.content, [{ type: 'text', text: 'Streaming text from the fake OpenAI server.' }]);
    assert.equal(message.stopReason, 'end');
    assert.equal(message.provider, 'openai');
    assert.ok(message.usage.input > 0 && message.usage.output > 0);
    assert.equal(message.usage.estimated, undefined);
    const body = server.requests.at(-1)!.body;
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.prompt_cache_key, 'ses_1');
    assert.equal(body.max_completion_tokens, 1024);
    assert.equal((body.messages as Array<{ role: string }>)[0].role, 'system');
  });

  it('streams parallel tool calls', async () => {
    server.script.push({
      toolCalls: [
        { id: 'call_a', name: 'read_file', arguments: { path: 'a.ts' } },
        { id: 'call_b', name: 'read_file', arguments: { path: 'b.ts' } },
      ],
    });
    const { events, message } = await run(openai, request([user('read both')], { tools: [readFileTool] }));
    assert.equal(events.filter((e) => e.type === 'toolcall_end').length, 2);
    assert.equal(message.stopReason, 'toolUse');
    assert.deepEqual(message.content, [
      { type: 'toolCall', id: 'call_a', name: 'read_file', arguments: { path: 'a.ts' } },
      { type: 'toolCall', id: 'call_b', name: 'read_file', arguments: { path: 'b.ts' } },
    ]);
    const tools = server.requests.at(-1)!.body.tools as Array<{ type: string; function: { name: string } }>;
    assert.equal(tools[0].function.name, 'read_file');
  });

  it('sends tool results as tool messages after the assistant tool_calls', async () => {
    server.script.push({ toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'x' } }] });
    const first = await run(openai, request([user('go')], { tools: [readFileTool] }));
    await run(openai, request([user('go'), first.message, toolResult('call_1', 'read_file', 'contents')], { tools: [readFileTool] }));
    const messages = server.requests.at(-1)!.body.messages as Array<Record<string, unknown>>;
    assert.deepEqual(messages.slice(2), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'contents' },
    ]);
  });

  it('an OpenAI-compatible server without usage gets estimated, marked usage and no key', async () => {
    const compat = new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl });
    server.script.push({ text: 'A local model answer.', thinking: 'reasoning first', omitUsage: true });
    const { events, message } = await run(compat, request([user('hello local model')]));
    assert.equal(message.stopReason, 'end');
    assert.equal(message.usage.estimated, true);
    assert.ok(message.usage.input > 0, 'input estimated from the request bytes');
    assert.ok(message.usage.output > 0, 'output estimated from the reply');
    assert.ok(
      events.some((e) => e.type === 'reasoning_delta'),
      'reasoning_content is streamed as reasoning',
    );
    assert.deepEqual(message.content, [
      { type: 'reasoning', text: 'reasoning first' },
      { type: 'text', text: 'A local model answer.' },
    ]);
    const body = server.requests.at(-1)!.body;
    assert.equal(body.max_tokens, 1024, 'compatible servers get max_tokens');
    assert.equal(body.max_completion_tokens, undefined);
  });
});
