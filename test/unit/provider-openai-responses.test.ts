import assert from 'node:assert/strict';
import { supportsReasoning } from '../../src/context/models';
import { createProvider } from '../../src/providers/create-provider';
import { OpenAIResponsesProvider } from '../../src/providers/openai-responses';
import type { AssistantMessage, Message } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { instantRetry, longSystem, readFileTool, request, run, toolResult, user } from '../fixtures/fake-provider/factories';

type Item = Record<string, unknown>;
const KEY = 'sk-test-responses-key-000';

describe('provider: OpenAI Responses API against the fake server', () => {
  let server: FakeProvider;
  let openai: OpenAIResponsesProvider;
  before(async () => {
    server = await startFakeProvider();
    openai = new OpenAIResponsesProvider({
      apiKey: KEY,
      baseUrl: server.openaiBaseUrl,
      reasons: supportsReasoning,
      retry: instantRetry().policy,
    });
  });
  after(() => server.close());
  beforeEach(() => {
    server.script.length = 0;
  });

  it('streams text statelessly with instructions, prompt_cache_key and normalized usage', async () => {
    server.script.push({ text: 'Streaming text from the fake Responses API.', chunkChars: 4 });
    const { events, message } = await run(openai, request([user('hi')], { model: 'gpt-4.1', promptCacheKey: 'ses_1' }));
    assert.ok(events.filter((e) => e.type === 'text_delta').length > 5);
    assert.deepEqual(message.content, [{ type: 'text', text: 'Streaming text from the fake Responses API.' }]);
    assert.equal(message.stopReason, 'end');
    const rec = server.requests.at(-1)!;
    assert.equal(rec.path, '/v1/responses');
    assert.equal(rec.body.store, false);
    assert.equal(rec.body.prompt_cache_key, 'ses_1');
    assert.equal(rec.body.instructions, 'You are a test assistant.');
    assert.equal(rec.body.max_output_tokens, 1024);
    // Not a reasoning model: OpenAI rejects encrypted reasoning for it, so none is asked for.
    assert.equal(rec.body.include, undefined);
    assert.equal(message.usage.input + message.usage.cacheRead, rec.inputTokens);
    assert.equal(message.usage.estimated, undefined);
  });

  it('reports cached input tokens apart from fresh ones', async () => {
    const req = request([user('same long prompt')], { model: 'gpt-4.1', system: longSystem(1500) });
    server.script.push({ text: 'one' }, { text: 'two' });
    const first = await run(openai, req);
    const second = await run(openai, req);
    assert.equal(first.message.usage.cacheRead, 0);
    assert.ok(second.message.usage.cacheRead >= 1024, JSON.stringify(second.message.usage));
    assert.equal(second.message.usage.input + second.message.usage.cacheRead, server.requests.at(-1)!.inputTokens);
  });

  it('streams function calls with their call ids and item ids', async () => {
    server.script.push({
      toolCalls: [
        { id: 'call_a', name: 'read_file', arguments: { path: 'a.ts' } },
        { id: 'call_b', name: 'read_file', arguments: { path: 'b.ts' } },
      ],
    });
    const { events, message } = await run(openai, request([user('read both')], { model: 'gpt-4.1', tools: [readFileTool] }));
    assert.equal(events.filter((e) => e.type === 'toolcall_end').length, 2);
    assert.equal(message.stopReason, 'toolUse');
    const calls = message.content.flatMap((p) => (p.type === 'toolCall' ? [p] : []));
    assert.deepEqual(
      calls.map((c) => [c.id, c.arguments]),
      [
        ['call_a', { path: 'a.ts' }],
        ['call_b', { path: 'b.ts' }],
      ],
    );
    assert.ok(calls.every((c) => c.itemId?.startsWith('fc_')));
    const tools = server.requests.at(-1)!.body.tools as Item[];
    assert.deepEqual([tools[0].type, tools[0].name], ['function', 'read_file']);
  });

  it('tool_choice none: the tools stay declared, and the answer is text although the script asked for a call', async () => {
    server.script.push({ text: 'The summary.', toolCalls: [{ id: 'call_x', name: 'read_file', arguments: { path: 'a.ts' } }] });
    const req = request([user('summarize')], { model: 'gpt-4.1', tools: [readFileTool], toolChoice: 'none' });
    const { message } = await run(openai, req);
    const rec = server.requests.at(-1)!;
    assert.equal(rec.body.tool_choice, 'none');
    assert.equal((rec.body.tools as Item[]).length, 1);
    assert.deepEqual(message.content, [{ type: 'text', text: 'The summary.' }]);
    assert.equal(message.stopReason, 'end');
  });

  it("carries the encrypted reasoning item into the tool round's next request", async () => {
    server.script.push(
      { thinking: 'The user wants a.ts; read it first.', toolCalls: [{ id: 'call_r', name: 'read_file', arguments: { path: 'a.ts' } }] },
      { text: 'a.ts exports one value.' },
    );
    const model = 'gpt-5-mini';
    const first = await run(
      openai,
      request([user('what is in a.ts?')], { model, tools: [readFileTool], thinking: { mode: 'effort', effort: 'medium' } }),
    );
    assert.deepEqual(server.requests.at(-1)!.body.include, ['reasoning.encrypted_content']);
    assert.deepEqual(server.requests.at(-1)!.body.reasoning, { effort: 'medium', summary: 'auto' });
    const reasoning = first.message.content.find((p) => p.type === 'reasoning');
    assert.equal(reasoning?.text, 'The user wants a.ts; read it first.');
    assert.ok(first.message.usage.reasoning && first.message.usage.reasoning > 0);

    const second = await run(
      openai,
      request([user('what is in a.ts?'), first.message, toolResult('call_r', 'read_file', 'export const a = 1;')], {
        model,
        tools: [readFileTool],
      }),
    );
    assert.equal(second.message.stopReason, 'end', JSON.stringify(second.message.error));
    const input = server.requests.at(-1)!.body.input as Item[];
    assert.deepEqual(
      input.map((i) => i.type ?? i.role),
      ['user', 'reasoning', 'function_call', 'function_call_output'],
    );
    assert.match(String(input[1].encrypted_content), /^enc:/);
    assert.equal(input[2].id, (first.message.content.find((p) => p.type === 'toolCall') as { itemId: string }).itemId);
    assert.equal(input[2].call_id, 'call_r');
  });

  it("sends reasoning only for the current turn: a later prompt leaves the earlier rounds' reasoning out", async () => {
    server.script.push(
      { thinking: 'Plan: read c.ts.', toolCalls: [{ id: 'call_o', name: 'read_file', arguments: { path: 'c.ts' } }] },
      { text: 'c.ts is empty.' },
      { text: 'ok' },
    );
    const model = 'gpt-5-mini';
    const history: Message[] = [user('what is in c.ts?')];
    const first = await run(openai, request(history, { model, tools: [readFileTool] }));
    history.push(first.message, toolResult('call_o', 'read_file', ''));
    const second = await run(openai, request(history, { model, tools: [readFileTool] }));
    history.push(second.message, user('thanks; now something else'));
    const third = await run(openai, request(history, { model, tools: [readFileTool] }));
    assert.equal(third.message.stopReason, 'end', JSON.stringify(third.message.error));
    const input = server.requests.at(-1)!.body.input as Item[];
    assert.deepEqual(
      input.map((i) => i.type ?? i.role),
      ['user', 'function_call', 'function_call_output', 'assistant', 'user'],
    );
    assert.equal(input[1].id, undefined); // unpaired: its reasoning item is not sent
  });

  it('the fake rejects a tool round whose reasoning item was lost, so the test above can fail', async () => {
    server.script.push({ thinking: 'think', toolCalls: [{ id: 'call_l', name: 'read_file', arguments: { path: 'b.ts' } }] });
    const model = 'o4-mini';
    const first = await run(openai, request([user('read b')], { model, tools: [readFileTool] }));
    // A raw client that kept the call item id but dropped the reasoning gets OpenAI's real 400.
    const call = first.message.content.find((p) => p.type === 'toolCall')!;
    const res = await fetch(`${server.openaiBaseUrl}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({
        model,
        store: false,
        stream: true,
        input: [
          { role: 'user', content: 'read b' },
          { type: 'function_call', id: (call as { itemId: string }).itemId, call_id: 'call_l', name: 'read_file', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_l', output: 'x' },
        ],
      }),
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /without its required 'reasoning' item/);
  });

  it('never sends reasoning from another model or provider', async () => {
    server.script.push({ text: 'ok' });
    const foreign: AssistantMessage = {
      role: 'assistant',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'toolUse',
      timestamp: 0,
      content: [
        { type: 'reasoning', text: 'hm', signature: 'anthropic-signature' },
        { type: 'toolCall', id: 'toolu_1', name: 'read_file', arguments: { path: 'c' } },
      ],
    };
    const { message } = await run(
      openai,
      request([user('go'), foreign, toolResult('toolu_1', 'read_file', 'c')], { model: 'gpt-5', tools: [readFileTool] }),
    );
    assert.equal(message.stopReason, 'end', JSON.stringify(message.error));
    const input = server.requests.at(-1)!.body.input as Item[];
    assert.deepEqual(
      input.map((i) => i.type ?? i.role),
      ['user', 'function_call', 'function_call_output'],
    );
  });

  it('maps an incomplete response to maxTokens', async () => {
    server.script.push({ text: 'cut', stopReason: 'maxTokens' });
    const { message } = await run(openai, request([user('long')], { model: 'gpt-4.1' }));
    assert.equal(message.stopReason, 'maxTokens');
  });

  it('classifies failures like the other adapters and never throws', async () => {
    server.setWindow('gpt-4.1-tiny', 50);
    const overflow = await run(openai, request([user('x'.repeat(400))], { model: 'gpt-4.1-tiny' }));
    assert.equal(overflow.message.error?.kind, 'context_overflow');

    server.script.push({ fault: 'stream_error', partialText: 'half an ans' });
    const failed = await run(openai, request([user('x')], { model: 'gpt-4.1' }));
    assert.equal(failed.message.stopReason, 'error');
    assert.equal(failed.message.error?.kind, 'overloaded');
    assert.equal(failed.message.partial, true);
    assert.deepEqual(failed.message.content, [{ type: 'text', text: 'half an ans' }]);

    server.script.push({ fault: 'drop', partialText: 'abc' });
    assert.equal((await run(openai, request([user('x')], { model: 'gpt-4.1' }))).message.error?.kind, 'network');

    const strict = await startFakeProvider({ apiKey: 'another-key' });
    try {
      const { message } = await run(
        new OpenAIResponsesProvider({ apiKey: KEY, baseUrl: strict.openaiBaseUrl }),
        request([user('x')], { model: 'gpt-4.1' }),
      );
      assert.equal(message.error?.kind, 'auth');
      assert.ok(!message.error?.message.includes(KEY.slice(3, -4)));
    } finally {
      await strict.close();
    }
  });

  it('retries a rate limit before anything streamed', async () => {
    const retry = instantRetry();
    const p = new OpenAIResponsesProvider({ apiKey: KEY, baseUrl: server.openaiBaseUrl, retry: retry.policy });
    server.script.push({ fault: 'rate_limit', retryAfterSeconds: 2 }, { text: 'after the wait' });
    const { events, message } = await run(p, request([user('x')], { model: 'gpt-4.1' }));
    assert.deepEqual(retry.delays, [2000]);
    assert.equal(events.filter((e) => e.type === 'retry').length, 1);
    assert.equal(message.stopReason, 'end');
  });

  it('createProvider sends openai through Responses and openai-compatible through Chat Completions', async () => {
    server.script.push({ text: 'a' }, { text: 'b' });
    await run(
      createProvider({ provider: 'openai', apiKey: KEY, baseUrl: server.openaiBaseUrl }),
      request([user('x')], { model: 'gpt-4.1' }),
    );
    assert.equal(server.requests.at(-1)!.path, '/v1/responses');
    await run(createProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl }), request([user('x')]));
    assert.equal(server.requests.at(-1)!.path, '/v1/chat/completions');
  });
});
