import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';

/** The fake's server-side context management, cache diagnostics and Responses compaction, through the real SDKs. */

type Params = Anthropic.Beta.Messages.MessageCreateParamsNonStreaming;
const BETAS = ['context-management-2025-06-27', 'compact-2026-01-12', 'cache-diagnosis-2026-04-07'];
const big = (label: string, words: number) => `${label} ${'lorem ipsum dolor sit amet '.repeat(words / 5)}`;

/** A conversation of `n` read_file calls with results of `words` words each, ending in a user prompt. */
function toolConversation(n: number, words: number): Anthropic.Beta.Messages.BetaMessageParam[] {
  const out: Anthropic.Beta.Messages.BetaMessageParam[] = [{ role: 'user', content: 'start the work' }];
  for (let i = 0; i < n; i++) {
    out.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: i === 0 ? 'work_ledger' : 'read_file', input: { path: `f${i}.ts` } }],
    });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: big(`file ${i}`, words) }] });
  }
  out.push({ role: 'user', content: 'what next?' });
  return out;
}

describe('fake provider: server-side context management as documented', () => {
  let server: FakeProvider;
  let client: Anthropic;
  before(async () => {
    server = await startFakeProvider({ window: 1_000_000 });
    client = new Anthropic({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 });
  });
  after(() => server.close());

  // The fake streams every answer, as Headroom asks for them.
  const create = (p: Omit<Params, 'model' | 'max_tokens'>, betas = BETAS) =>
    client.beta.messages.stream({ model: 'fake-model', max_tokens: 1000, betas, ...p }).finalMessage();

  it('clears the oldest tool results past the trigger, keeping `keep` and the excluded tools', async () => {
    server.script.push({ text: 'ok' });
    const msg = await create({
      messages: toolConversation(8, 400),
      context_management: {
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'input_tokens', value: 1000 },
            keep: { type: 'tool_uses', value: 2 },
            exclude_tools: ['work_ledger'],
            clear_tool_inputs: true,
          },
        ],
      },
    });
    const applied = msg.context_management?.applied_edits[0] as Anthropic.Beta.Messages.BetaClearToolUses20250919EditResponse;
    assert.equal(applied.type, 'clear_tool_uses_20250919');
    assert.equal(applied.cleared_tool_uses, 5, 'eight uses, one excluded, two kept');
    assert.ok(applied.cleared_input_tokens > 5 * 300);
    const rec = server.requests.at(-1)!;
    assert.ok(rec.inputTokens < 4 * 450, `the model saw ${rec.inputTokens} tokens`);
  });

  it('does not clear when less than clear_at_least would go, and refuses edits without the beta', async () => {
    server.script.push({ text: 'ok' });
    const msg = await create({
      messages: toolConversation(4, 100),
      context_management: {
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'input_tokens', value: 100 },
            clear_at_least: { type: 'input_tokens', value: 50_000 },
          },
        ],
      },
    });
    assert.deepEqual(msg.context_management?.applied_edits, []);
    await assert.rejects(
      create({ messages: toolConversation(1, 10), context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } }, []),
      (e: unknown) => (e as { status?: number }).status === 400,
    );
  });

  it('clears old thinking, first in the list, and only with thinking on', async () => {
    const messages: Anthropic.Beta.Messages.BetaMessageParam[] = [];
    for (let i = 0; i < 3; i++) {
      messages.push({ role: 'user', content: `q${i}` });
      messages.push({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: big('thought', 200), signature: 's' },
          { type: 'text', text: `a${i}` },
        ],
      });
    }
    messages.push({ role: 'user', content: 'q3' });
    server.script.push({ text: 'ok' });
    const msg = await create({
      messages,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      max_tokens: 4000,
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } }] },
    } as never);
    const applied = msg.context_management?.applied_edits[0] as Anthropic.Beta.Messages.BetaClearThinking20251015EditResponse;
    assert.equal(applied.cleared_thinking_turns, 2);
    await assert.rejects(
      create({ messages, context_management: { edits: [{ type: 'clear_thinking_20251015' }] } }),
      (e: unknown) => (e as { status?: number }).status === 400,
    );
  });

  it('compacts past the trigger: the compaction block first, its cost in usage.iterations only, instructions followed', async () => {
    server.script.push({ text: 'continuing' });
    const messages = toolConversation(60, 1000);
    const msg = await create({
      messages,
      context_management: {
        edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 }, instructions: 'keep file names' }],
      },
    });
    assert.equal(msg.content[0].type, 'compaction');
    const block = msg.content[0];
    assert.match(block.content ?? '', /instructed \(keep file names\)/);
    assert.match(block.content ?? '', /what next\?/);
    assert.equal(msg.content[1].type, 'text');
    const iterations = msg.usage.iterations ?? [];
    assert.deepEqual(
      iterations.map((i) => i.type),
      ['compaction', 'message'],
    );
    const compaction = iterations[0];
    assert.ok(compaction.input_tokens + compaction.cache_read_input_tokens + compaction.cache_creation_input_tokens > 50_000);
    assert.ok(msg.usage.input_tokens + (msg.usage.cache_read_input_tokens ?? 0) + (msg.usage.cache_creation_input_tokens ?? 0) < 5_000);
    // Sent back, the block stands for everything before it.
    server.script.push({ text: 'next' });
    await create({
      messages: [...messages.slice(0, -1), { role: 'assistant', content: msg.content as never }, { role: 'user', content: 'go on' }],
    });
    assert.ok(server.requests.at(-1)!.inputTokens < 5_000);
  });

  it('pauses after compaction when asked, and refuses a trigger under 50,000 tokens', async () => {
    const before = server.script.length;
    const msg = await create({
      messages: toolConversation(60, 1000),
      context_management: {
        edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 }, pause_after_compaction: true }],
      },
    });
    assert.equal(msg.stop_reason, 'compaction');
    assert.deepEqual(
      msg.content.map((b) => b.type),
      ['compaction'],
    );
    assert.equal(server.script.length, before);
    await assert.rejects(
      create({
        messages: toolConversation(1, 10),
        context_management: { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 1000 } }] },
      }),
      (e: unknown) => (e as { status?: number }).status === 400,
    );
  });

  it('cache diagnostics name what changed and the tokens it cost', async () => {
    const system = [{ type: 'text' as const, text: big('system', 2000), cache_control: { type: 'ephemeral' as const } }];
    const first = await create({
      system,
      messages: [{ role: 'user', content: 'one' }],
      diagnostics: { previous_message_id: null },
    } as never);
    assert.equal(first.diagnostics, null);
    const same = await create({
      system,
      messages: [{ role: 'user', content: 'one' }],
      diagnostics: { previous_message_id: first.id },
    } as never);
    assert.equal(same.diagnostics, null);
    const changed = await create({
      system: [{ ...system[0], text: big('other system', 2000) }],
      messages: [{ role: 'user', content: 'one' }],
      diagnostics: { previous_message_id: same.id },
    } as never);
    const reason = changed.diagnostics?.cache_miss_reason as Anthropic.Beta.Messages.BetaCacheMissSystemChanged;
    assert.equal(reason.type, 'system_changed');
    assert.ok(reason.cache_missed_input_tokens > 1500);
    const choice = await create({
      system: [{ ...system[0], text: big('other system', 2000) }],
      messages: [{ role: 'user', content: 'one' }],
      tools: [{ name: 't', description: 'd', input_schema: { type: 'object' } }],
      diagnostics: { previous_message_id: 'msg_unknown' },
    } as never);
    assert.equal(choice.diagnostics?.cache_miss_reason?.type, 'previous_message_not_found');
    await assert.rejects(
      create({ messages: [{ role: 'user', content: 'x' }], diagnostics: { previous_message_id: null } } as never, []),
      (e: unknown) => (e as { status?: number }).status === 400,
    );
  });

  it('OpenAI Responses: compacts past compact_threshold and at /responses/compact', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseUrl, maxRetries: 0 });
    const input = Array.from({ length: 20 }, (_, i) => ({ role: 'user' as const, content: big(`turn ${i}`, 300) }));
    server.script.push({ text: 'answer' });
    const r = await openai.responses
      .stream({ model: 'gpt-5', input, context_management: [{ type: 'compaction', compact_threshold: 2000 }] } as never)
      .finalResponse();
    const out = (r as unknown as { output: Array<{ type: string; encrypted_content?: string }> }).output;
    assert.equal(out[0].type, 'compaction');
    const compacted = await openai.responses.compact({ model: 'gpt-5', input });
    assert.equal(compacted.object, 'response.compaction');
    assert.equal(compacted.output.at(-1)?.type, 'compaction');
    assert.equal(compacted.output.filter((o) => o.type === 'message').length, 20);
    assert.ok(compacted.usage.input_tokens > 5000);
    // The next request counts the compaction item instead of what it replaced.
    server.script.push({ text: 'small' });
    await openai.responses
      .stream({ model: 'gpt-5', input: [compacted.output.at(-1) as never, { role: 'user', content: 'go on' }] })
      .finalResponse();
    assert.ok(server.requests.at(-1)!.inputTokens < 1500);
  });
});
