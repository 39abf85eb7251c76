import assert from 'node:assert/strict';
import { createProvider } from '../../src/providers/create-provider';
import { OllamaChatProvider } from '../../src/providers/ollama-chat';
import { toOllamaMessages } from '../../src/providers/ollama-convert';
import type { AssistantMessage, ToolResultMessage } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';

const MODEL = 'llama3.1:8b';

/** Ollama's native chat API: the one that takes the context per request. */
describe('provider: Ollama native chat', () => {
  let server: FakeProvider;
  beforeEach(async () => (server = await startFakeProvider({ flavour: 'ollama', windows: { [MODEL]: 8192 }, tokenizer: 'sentencepiece' })));
  afterEach(async () => server.close());

  const provider = (numCtx?: number) => new OllamaChatProvider({ baseUrl: server.openaiBaseUrl, numCtx, retry: { maxRetries: 0 } });

  it('streams text and whole tool calls, with the counts of the last line as usage; sends num_ctx, num_predict and truncate: false', async () => {
    server.script.push({ text: 'Reading it.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.md' } }] });
    const { message, events } = await run(provider(8192), request([user('read a.md')], { model: MODEL, maxOutputTokens: 700 }));
    assert.equal(message.stopReason, 'toolUse');
    assert.deepEqual(
      message.content.map((p) => p.type),
      ['text', 'toolCall'],
    );
    const call = message.content[1];
    assert.deepEqual(call.type === 'toolCall' && [call.id, call.name, call.arguments], ['c1', 'read_file', { path: 'a.md' }]);
    assert.ok(events.some((e) => e.type === 'toolcall_end'));
    const rec = server.requests[0];
    assert.equal(rec.path, '/api/chat');
    assert.deepEqual(rec.body.options, { num_predict: 700, num_ctx: 8192 });
    assert.equal(rec.body.truncate, false);
    assert.equal(message.usage.input, rec.inputTokens, "prompt_eval_count, counted with the server's tokenizer");
    assert.ok(message.usage.output > 0);
  });

  it('a prompt over num_ctx is refused (truncate: false) and classified as an overflow, not cut', async () => {
    const { message } = await run(provider(300), request([user('word '.repeat(600))], { model: MODEL }));
    assert.equal(message.error?.kind, 'context_overflow', message.error?.message);
    assert.equal(server.requests[0].silentlyTruncatedTokens, undefined);
  });

  it('is what createProvider builds for an OpenAI-compatible base URL that is Ollama', async () => {
    const p = createProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, ollama: { numCtx: 4096 } });
    server.script.push({ text: 'ok' });
    const { message } = await run(p, request([user('hi')], { model: MODEL }));
    assert.equal(message.stopReason, 'end', message.error?.message);
    assert.deepEqual([server.requests[0].protocol, server.requests[0].numCtx], ['ollama', 4096]);
  });

  it('converts the conversation: one system message, tool results with their tool name, the note last', () => {
    const call: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 't1', name: 'read_file', arguments: { path: 'x' } }],
      provider: 'openai-compatible',
      model: MODEL,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'toolUse',
      timestamp: 0,
    };
    const result: ToolResultMessage = {
      role: 'toolResult',
      toolCallId: 't1',
      toolName: 'read_file',
      content: [{ type: 'text', text: 'file body' }],
      isError: false,
      timestamp: 0,
    };
    const out = toOllamaMessages({
      system: [
        { id: 'a', text: 'one' },
        { id: 'b', text: 'two' },
      ],
      messages: [user('q'), call, result],
      trailingNote: '[Context: 85 % used.]',
    });
    assert.deepEqual(out, [
      { role: 'system', content: 'one\n\ntwo' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', tool_calls: [{ id: 't1', function: { name: 'read_file', arguments: { path: 'x' } } }] },
      { role: 'tool', content: 'file body', tool_name: 'read_file', tool_call_id: 't1' },
      { role: 'user', content: '[Context: 85 % used.]' },
    ]);
  });
});
