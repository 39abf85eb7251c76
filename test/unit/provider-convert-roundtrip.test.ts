import assert from 'node:assert/strict';
import { toAnthropicMessages, toAnthropicParams } from '../../src/providers/anthropic-convert';
import { toOpenAIMessages, toOpenAIParams } from '../../src/providers/openai-convert';
import { fromAnthropicMessages, fromOpenAIMessages } from '../fixtures/providers/wire-back';
import { toResponsesParams } from '../../src/providers/openai-responses-convert';
import type { AssistantMessage, Message } from '../../src/providers/types';
import { request, toolResult, user } from '../fixtures/fake-provider/factories';

const IMG = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' };

function assistant(content: AssistantMessage['content'], provider: AssistantMessage['provider'] = 'anthropic'): AssistantMessage {
  return {
    role: 'assistant',
    content,
    provider,
    model: 'm',
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    stopReason: content.some((c) => c.type === 'toolCall') ? 'toolUse' : 'end',
    timestamp: 0,
  };
}

/** A conversation using every part of the neutral model. */
function conversation(provider: AssistantMessage['provider']): Message[] {
  return [
    { role: 'user', content: [{ type: 'text', text: 'Look at this screenshot' }, IMG], timestamp: 0 },
    assistant(
      [
        { type: 'reasoning', text: 'The user wants two files.', signature: 'sig-1' },
        { type: 'text', text: 'Reading both files.' },
        { type: 'toolCall', id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } },
        { type: 'toolCall', id: 'c2', name: 'read_file', arguments: { path: 'b.ts', limit: 10 } },
      ],
      provider,
    ),
    toolResult('c1', 'read_file', 'export const a = 1;'),
    toolResult('c2', 'read_file', 'ENOENT: no such file', true),
    user('Thanks, now fix it.'),
    assistant([{ type: 'text', text: 'Done.' }], provider),
  ];
}

describe('provider: conversion round-trips (neutral → wire → neutral)', () => {
  it('Anthropic keeps every part, including signed thinking, images and tool errors', () => {
    const messages = conversation('anthropic');
    messages.push(
      user('and redacted?'),
      assistant([
        { type: 'reasoning', text: '', redactedData: 'opaque' },
        { type: 'text', text: 'ok' },
      ]),
    );
    const wire = toAnthropicMessages(messages);
    assert.deepEqual(
      wire.map((w) => w.role),
      ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'],
      'tool results and the next user text merge into one user turn',
    );
    assert.deepEqual(fromAnthropicMessages(wire, { model: 'm' }), messages);
  });

  it('OpenAI keeps text, images, tool calls and tool errors; reasoning has no wire field and is dropped', () => {
    const messages = conversation('openai');
    messages.splice(3, 1, {
      ...toolResult('c2', 'read_file', 'ENOENT: no such file', true),
      content: [{ type: 'text', text: 'ENOENT: no such file' }, IMG],
    });
    const wire = toOpenAIMessages('System prompt.', messages);
    assert.deepEqual(
      wire.map((w) => w.role),
      ['system', 'user', 'assistant', 'tool', 'tool', 'user', 'user', 'assistant'],
      'tool images follow the tool run as a user message',
    );
    const back = fromOpenAIMessages(wire, { provider: 'openai', model: 'm' });
    assert.equal(back.system, 'System prompt.');
    const expected = structuredClone(messages);
    (expected[1] as AssistantMessage).content.shift(); // the reasoning part
    assert.deepEqual(back.messages, expected);
  });

  it('unparsable tool arguments travel back to the model verbatim', () => {
    const m = assistant([{ type: 'toolCall', id: 'c9', name: 'edit', arguments: {}, rawArguments: '{"path": ' }], 'openai');
    const wire = toOpenAIMessages('', [user('x'), m]);
    const back = fromOpenAIMessages(wire).messages[1] as AssistantMessage;
    assert.deepEqual(back.content[0], { type: 'toolCall', id: 'c9', name: 'edit', arguments: {}, rawArguments: '{"path": ' });
  });

  it('Anthropic request: at most 4 breakpoints, the latest system ones plus the tail; none on tools', () => {
    const system = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, text: `section ${id}`, cacheBreakpoint: id !== 'e' }));
    const params = toAnthropicParams(
      request(conversation('anthropic'), {
        system,
        cacheTail: true,
        tools: [{ name: 't', description: 'd', inputSchema: { type: 'object', properties: {} } }],
      }),
    );
    const marked = (params.system as Array<{ cache_control?: unknown }>).map((s) => s.cache_control !== undefined);
    assert.deepEqual(marked, [false, true, true, true, false]);
    const last = params.messages.at(-1)!.content as Array<{ type: string; cache_control?: unknown }>;
    assert.ok(last.at(-1)!.cache_control, 'the conversation tail carries a breakpoint');
    assert.equal((params.tools![0] as { cache_control?: unknown }).cache_control, undefined);
    const all = JSON.stringify(params).match(/cache_control/g) ?? [];
    assert.equal(all.length, 4);
  });

  it('Anthropic request: the tail marker skips thinking blocks, empty sections and text are not sent', () => {
    const params = toAnthropicParams(
      request(
        [
          user('q'),
          assistant([
            { type: 'text', text: 'visible' },
            { type: 'reasoning', text: 'late thought', signature: 's' },
          ]),
        ],
        {
          system: [
            { id: 'x', text: '' },
            { id: 'y', text: 'kept' },
          ],
          cacheTail: true,
        },
      ),
    );
    assert.deepEqual(params.system, [{ type: 'text', text: 'kept' }]);
    const blocks = params.messages[1].content as Array<{ type: string; cache_control?: unknown }>;
    assert.ok(blocks[0].cache_control);
    assert.equal(blocks[1].cache_control, undefined);
  });

  it('OpenAI request: one stable system message, reasoning effort from the budget, no temperature to a reasoning model', () => {
    const params = toOpenAIParams(
      request([user('x')], {
        system: [
          { id: 'a', text: 'Base.' },
          { id: 'b', text: 'Rules.' },
        ],
        thinking: { mode: 'budget', budgetTokens: 16_000 },
        temperature: 0.2,
      }),
      'openai',
    );
    assert.deepEqual(params.messages[0], { role: 'system', content: 'Base.\n\nRules.' });
    assert.equal(params.reasoning_effort, 'high');
    assert.equal(params.temperature, undefined, 'reasoning models refuse sampling parameters');
    assert.equal(toOpenAIParams(request([user('x')], { temperature: 0.2 }), 'openai').temperature, 0.2);
  });
});

describe('provider: OpenAI Responses request', () => {
  const tool = { name: 'read_file', description: 'Reads a file.', inputSchema: { type: 'object', properties: {} } };

  it('keeps tool_choice none: the tools stay declared (the cached prefix) but the answer is text', () => {
    const params = toResponsesParams(request([user('x')], { tools: [tool], toolChoice: 'none' }), false);
    assert.equal(params.tool_choice, 'none');
    assert.equal(toResponsesParams(request([user('x')], { tools: [tool] }), false).tool_choice, undefined);
  });

  it('a reasoning model gets its effort and no temperature; reasoning off is effort none, which takes a temperature', () => {
    const effort = toResponsesParams(request([user('x')], { thinking: { mode: 'effort', effort: 'high' }, temperature: 0 }), true);
    assert.deepEqual([effort.reasoning, effort.temperature], [{ effort: 'high', summary: 'auto' }, undefined]);
    const off = toResponsesParams(request([user('x')], { thinking: { mode: 'disabled' }, temperature: 0 }), true);
    assert.deepEqual([off.reasoning, off.temperature], [{ effort: 'none' }, 0]);
  });
});

describe('provider: Anthropic thinking budget', () => {
  it('fits the budget under max_tokens and never raises max_tokens', () => {
    const withBudget = (budgetTokens: number, maxOutputTokens: number) =>
      toAnthropicParams(request([user('x')], { thinking: { mode: 'budget', budgetTokens }, maxOutputTokens }));
    assert.deepEqual(withBudget(2048, 4096).thinking, { type: 'enabled', budget_tokens: 2048 });
    const clamped = withBudget(10_000, 4096);
    assert.deepEqual(clamped.thinking, { type: 'enabled', budget_tokens: 3072 });
    assert.equal(clamped.max_tokens, 4096);
    assert.equal(withBudget(4096, 1500).thinking, undefined, 'no room for thinking: it is left off');
  });

  it('adaptive thinking goes with its effort in output_config; off is sent as disabled; nothing means nothing', () => {
    const adaptive = toAnthropicParams(request([user('x')], { thinking: { mode: 'adaptive', effort: 'high' }, maxOutputTokens: 4096 }));
    assert.deepEqual([adaptive.thinking, adaptive.output_config, adaptive.max_tokens], [{ type: 'adaptive' }, { effort: 'high' }, 4096]);
    assert.deepEqual(toAnthropicParams(request([user('x')], { thinking: { mode: 'disabled' } })).thinking, { type: 'disabled' });
    const none = toAnthropicParams(request([user('x')], { temperature: 0 }));
    assert.deepEqual(
      [none.thinking, none.output_config, (none as { temperature?: number }).temperature],
      [undefined, undefined, undefined],
    );
  });
});
