import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';

/**
 * The fake provider follows the published contract, not our reading of it: the Models API with the
 * key, the count endpoint, each model's refusals with the real wording, and Anthropic's
 * cache-invalidation table (tool_choice and thinking changes invalidate the message cache only).
 */
describe('fake provider: the published contract', () => {
  let fake: FakeProvider;
  const key = 'sk-ant-test';
  before(async () => (fake = await startFakeProvider({ lineup: TODAYS_LINEUP, apiKey: key, minCacheTokens: 64 })));
  after(async () => fake?.close());
  const client = (apiKey = key) => new Anthropic({ apiKey, baseURL: fake.baseUrl, maxRetries: 0 });

  async function post(
    path: string,
    body: unknown,
  ): Promise<{ status: number; json: { error?: { type: string; message: string }; input_tokens?: number } }> {
    const res = await fetch(`${fake.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    // A 200 from the Messages endpoint is a stream; errors and counts are JSON.
    const text = await res.text();
    return { status: res.status, json: (text.startsWith('{') ? JSON.parse(text) : {}) as never };
  }

  it('lists the lineup through the SDK with the key (retired models left out), and refuses a request without it', async () => {
    const ids: string[] = [];
    for await (const m of client().models.list({ limit: 2 })) ids.push(m.id);
    assert.deepEqual(ids, ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-petite-5', 'claude-sonnet-4-5']);
    const petite = await client().models.retrieve('claude-petite-5');
    assert.deepEqual(
      [petite.max_input_tokens, petite.max_tokens, petite.capabilities?.thinking.types.adaptive.supported],
      [32_000, 8_000, true],
    );
    await assert.rejects(
      client('wrong')
        .models.list()
        .then((p) => p.data),
      /401/,
    );
    await assert.rejects(client().models.retrieve('claude-9'), /404/);
  });

  it('counts exactly what the Messages endpoint bills', async () => {
    const body = { model: 'claude-sonnet-5-5', system: 'You help.', messages: [{ role: 'user' as const, content: 'Count me, please.' }] };
    const counted = await client().messages.countTokens(body);
    await client()
      .messages.stream({ ...body, max_tokens: 100 })
      .finalMessage();
    assert.equal(counted.input_tokens, fake.requests.at(-1)!.inputTokens);
    assert.equal(fake.counts.at(-1)!.inputTokens, counted.input_tokens);
    assert.equal((await post('/v1/messages/count_tokens', { ...body, model: 'claude-opus-4-1' })).status, 404, 'a retired model');
  });

  it('answers what an adaptive-only model refuses with the real 400, and takes adaptive thinking with an effort', async () => {
    const base = { model: 'claude-opus-5-5', max_tokens: 4_000, messages: [{ role: 'user', content: 'hi' }] };
    const budget = await post('/v1/messages', { ...base, thinking: { type: 'enabled', budget_tokens: 2_048 } });
    assert.equal(budget.status, 400);
    assert.match(budget.json.error!.message, /^`thinking\.type\.enabled` is not supported for this model\. Use `thinking\.type\.adaptive`/);
    assert.equal(
      (await post('/v1/messages', { ...base, temperature: 0 })).json.error?.message,
      '`temperature` is deprecated for this model.',
    );
    assert.equal((await post('/v1/messages', { ...base, top_k: 5 })).json.error?.message, '`top_k` is deprecated for this model.');
    assert.equal((await post('/v1/messages', { ...base, thinking: { type: 'disabled' } })).status, 400, 'its thinking is always on');
    assert.match(
      (await post('/v1/messages', { ...base, max_tokens: 200_000 })).json.error!.message,
      /maximum allowed number of output tokens/,
    );
    const ok = await post('/v1/messages', { ...base, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    assert.equal(ok.status, 200);
    assert.equal((await post('/v1/messages', { ...base, model: 'claude-sonnet-4-5', thinking: { type: 'adaptive' } })).status, 400);
  });

  it('refuses an assistant message that ends in thinking and a tool call without its result', async () => {
    const thinkingLast = await post('/v1/messages', {
      model: 'claude-sonnet-5-5',
      max_tokens: 1_000,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }] },
        { role: 'user', content: 'b' },
      ],
    });
    assert.match(thinkingLast.json.error!.message, /The final block in an assistant message cannot be `thinking`/);
    const dangling = await post('/v1/messages', {
      model: 'claude-sonnet-5-5',
      max_tokens: 1_000,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }] },
        { role: 'user', content: 'b' },
      ],
    });
    assert.match(dangling.json.error!.message, /`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1/);
  });

  it('a tool_choice or thinking change keeps the tools and system caches and invalidates the message cache', async () => {
    const long = (w: string) => `${w} `.repeat(400);
    const body = {
      model: 'claude-sonnet-5-5',
      max_tokens: 500,
      tools: [{ name: 'read', description: long('Reads a file.'), input_schema: { type: 'object' } }],
      system: [{ type: 'text', text: long('System.'), cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: long('History.'), cache_control: { type: 'ephemeral' } }] }],
    };
    fake.clearCache();
    const send = (extra: object) =>
      client()
        .messages.stream({ ...body, ...extra } as Anthropic.MessageStreamParams)
        .finalMessage();
    await send({});
    const whole = (await send({})).usage.cache_read_input_tokens ?? 0;
    assert.ok(whole > 0);
    for (const change of [{ tool_choice: { type: 'none' } }, { thinking: { type: 'adaptive' } }]) {
      const read = (await send(change)).usage.cache_read_input_tokens ?? 0;
      assert.ok(read > 0 && read < whole, `${JSON.stringify(change)}: read ${read} of ${whole} (tools and system only)`);
    }
  });
});
