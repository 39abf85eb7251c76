import assert from 'node:assert/strict';
import { appliedContextEdits } from '../../src/providers/anthropic-context-editing';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';
import { readFileTool, request, run } from '../fixtures/fake-provider/factories';
import { EDITING, searchTool, toolConversation } from '../fixtures/agent/tool-conversation';

/**
 * The Anthropic adapter asking for context editing (https://platform.claude.com/docs/en/build-with-claude/context-editing)
 * and reading what the server says it cleared, against the fake on 127.0.0.1 with the real SDK.
 */

describe('provider: Anthropic context editing', () => {
  let server: FakeProvider;
  let provider: AnthropicProvider;
  before(async () => {
    server = await startFakeProvider({ lineup: TODAYS_LINEUP });
    provider = new AnthropicProvider({ apiKey: 'sk-ant-test-key-123456', baseUrl: server.baseUrl, retry: { maxRetries: 0 } });
  });
  after(() => server.close());

  it('sends clear_thinking first, then clear_tool_uses with trigger, keep, clear_at_least, exclude_tools, behind the beta', async () => {
    server.script.push({ text: 'done' });
    await run(
      provider,
      request(toolConversation(4), {
        model: 'claude-opus-5-5',
        tools: [readFileTool, searchTool],
        thinking: { mode: 'adaptive', effort: 'low' },
        contextEditing: EDITING,
      }),
    );
    const rec = server.requests.at(-1)!;
    assert.equal(rec.status, 200);
    assert.match(String(rec.headers['anthropic-beta']), /context-management-2025-06-27/);
    assert.deepEqual((rec.body.context_management as { edits: unknown[] }).edits, [
      { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 2 } },
      {
        type: 'clear_tool_uses_20250919',
        trigger: { type: 'input_tokens', value: 1000 },
        keep: { type: 'tool_uses', value: 2 },
        clear_at_least: { type: 'input_tokens', value: 500 },
        exclude_tools: ['search_history'],
        clear_tool_inputs: false,
      },
    ]);
  });

  it('asks for no thinking edit when thinking is off, and for nothing without contextEditing', async () => {
    server.script.push({ text: 'done' }, { text: 'done' });
    await run(provider, request(toolConversation(1), { model: 'claude-sonnet-5-5', contextEditing: EDITING }));
    const edits = (server.requests.at(-1)!.body.context_management as { edits: Array<{ type: string }> }).edits;
    assert.deepEqual(
      edits.map((e) => e.type),
      ['clear_tool_uses_20250919'],
    );
    await run(provider, request(toolConversation(1), { model: 'claude-sonnet-5-5' }));
    const plain = server.requests.at(-1)!;
    assert.equal(plain.body.context_management, undefined);
    assert.equal(plain.headers['anthropic-beta'], undefined);
  });

  it('reads what the server cleared from the final delta', async () => {
    server.script.push({ text: 'done' });
    const { message } = await run(
      provider,
      request(toolConversation(4), { model: 'claude-sonnet-5-5', tools: [readFileTool, searchTool], contextEditing: EDITING }),
    );
    const applied = server.requests.at(-1)!.appliedEdits as Array<{ cleared_tool_uses: number; cleared_input_tokens: number }>;
    assert.equal(applied.length, 1);
    assert.equal(applied[0].cleared_tool_uses, 2, 'four read_file uses, two kept, search_history excluded');
    assert.deepEqual(message.contextEdits, [{ kind: 'toolUses', cleared: 2, inputTokens: applied[0].cleared_input_tokens }]);
    assert.ok(applied[0].cleared_input_tokens > 500);
  });

  it('ignores hostile applied_edits: negative, huge, wrong types, not a list', async () => {
    const hostile: unknown[] = [
      { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: -3, cleared_input_tokens: 100 }] },
      { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: 1e308 }] },
      { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: '2', cleared_input_tokens: '900' }] },
      { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 1.5, cleared_input_tokens: 900 }] },
      { applied_edits: 'all of them' },
      { applied_edits: [{ type: 'drop_everything', cleared_tool_uses: 2, cleared_input_tokens: 900 }] },
      'cleared',
    ];
    // The same answer with a sound figure is read: the hostile ones below are dropped, not missed.
    server.script.push({
      text: 'done',
      rawContextManagement: { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: 900 }] },
    });
    const sound = await run(
      provider,
      request(toolConversation(4), { model: 'claude-sonnet-5-5', tools: [readFileTool, searchTool], contextEditing: EDITING }),
    );
    assert.deepEqual(sound.message.contextEdits, [{ kind: 'toolUses', cleared: 2, inputTokens: 900 }]);
    for (const raw of hostile) {
      server.script.push({ text: 'done', rawContextManagement: raw });
      const { message } = await run(
        provider,
        request(toolConversation(4), { model: 'claude-sonnet-5-5', tools: [readFileTool, searchTool], contextEditing: EDITING }),
      );
      assert.equal(message.stopReason, 'end', JSON.stringify(raw));
      assert.equal(message.contextEdits, undefined, JSON.stringify(raw));
    }
  });

  it('keeps the sound entries of a list that also holds hostile ones', () => {
    assert.deepEqual(
      appliedContextEdits({
        applied_edits: [
          { type: 'clear_thinking_20251015', cleared_thinking_turns: 2, cleared_input_tokens: 40 },
          { type: 'clear_tool_uses_20250919', cleared_tool_uses: 1, cleared_input_tokens: -1 },
          null,
        ],
      }),
      [{ kind: 'thinking', cleared: 2, inputTokens: 40 }],
    );
  });
});
