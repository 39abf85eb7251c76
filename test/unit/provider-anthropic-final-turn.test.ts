import * as assert from 'node:assert/strict';
import { toAnthropicParams } from '../../src/providers/anthropic-convert';
import type { Message, ProviderRequest } from '../../src/providers/types';

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'read a.ts' }], timestamp: 1 },
  {
    role: 'assistant',
    content: [{ type: 'toolCall', id: 'toolu_1', name: 'read_file', arguments: { path: 'a.ts' } }],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage,
    stopReason: 'toolUse',
    timestamp: 2,
  },
  {
    role: 'toolResult',
    toolCallId: 'toolu_1',
    toolName: 'read_file',
    content: [{ type: 'text', text: 'export {}' }],
    isError: false,
    timestamp: 3,
  },
];
const req = (tools: ProviderRequest['tools']): ProviderRequest => ({
  model: 'claude-sonnet-4-5',
  system: [],
  messages: history,
  tools,
  maxOutputTokens: 1000,
});

describe('provider: Anthropic request without tools (forced final turn)', () => {
  it('declares stubs for the tools the history used and forbids tool use', () => {
    const p = toAnthropicParams(req([]));
    assert.deepEqual(
      p.tools?.map((t) => (t as { name: string }).name),
      ['read_file'],
    );
    assert.deepEqual(p.tool_choice, { type: 'none' });
  });

  it('sends no tools and no tool_choice when the history has no tool calls', () => {
    const p = toAnthropicParams({ ...req([]), messages: [history[0]] });
    assert.equal(p.tools, undefined);
    assert.equal(p.tool_choice, undefined);
  });

  it('leaves a normal request with tools untouched', () => {
    const p = toAnthropicParams(req([{ name: 'read_file', description: 'Reads', inputSchema: { type: 'object', properties: {} } }]));
    assert.equal(p.tool_choice, undefined);
    assert.equal(p.tools?.length, 1);
  });
});
