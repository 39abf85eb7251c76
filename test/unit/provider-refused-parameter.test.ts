import assert from 'node:assert/strict';
import { storableReply } from '../../src/agent/storable-reply';
import { createProvider } from '../../src/providers/create-provider';
import { refusedParameter, RefusedParameters } from '../../src/providers/parameter-fallback';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';
import { createHarness, type Harness } from '../fixtures/agent/harness';

describe('a parameter the model refuses: dropped for that model, sent again once, the person told once', () => {
  let fake: FakeProvider;
  before(async () => (fake = await startFakeProvider({ lineup: TODAYS_LINEUP })));
  after(async () => fake?.close());

  it('recognises the providers’ wording of a refused parameter (and nothing else)', () => {
    const e = (message: string, status = 400) => ({ kind: 'invalid_request' as const, status, message });
    assert.equal(
      refusedParameter(
        e('`thinking.type.enabled` is not supported for this model. Use `thinking.type.adaptive` and `output_config.effort`'),
      ),
      'thinking-budget',
    );
    assert.equal(refusedParameter(e('`temperature` is deprecated for this model.')), 'temperature');
    assert.equal(refusedParameter(e("Unsupported parameter: 'temperature' is not supported with this model.")), 'temperature');
    assert.equal(refusedParameter(e("Unsupported value: 'reasoning.effort' does not support 'max' with this model.")), 'effort');
    assert.equal(refusedParameter(e('prompt is too long: 210000 tokens > 200000 maximum')), undefined);
    assert.equal(refusedParameter({ kind: 'rate_limit', status: 429, message: '`temperature` is deprecated' }), undefined);
  });

  it('a budget an adaptive-only model refuses becomes adaptive thinking: the turn goes on, later requests never send it', async () => {
    const told: string[] = [];
    const refused = new RefusedParameters((model, p) => told.push(`${model}:${p}`));
    const provider = createProvider({ provider: 'anthropic', apiKey: 'k', baseUrl: fake.baseUrl, refused });
    const from = fake.requests.length;
    const req = request([user('think hard')], {
      model: 'claude-opus-5-5',
      thinking: { mode: 'budget', budgetTokens: 8_192 },
      maxOutputTokens: 16_000,
    });
    const first = await run(provider, req);
    assert.equal(first.message.stopReason, 'end', JSON.stringify(first.message.error));
    const sent = fake.requests
      .slice(from)
      .map((r) => [r.status, JSON.stringify(r.body.thinking), JSON.stringify(r.body.output_config ?? null)]);
    assert.deepEqual(sent, [
      [400, '{"type":"enabled","budget_tokens":8192}', 'null'],
      [200, '{"type":"adaptive"}', '{"effort":"medium"}'],
    ]);
    const again = fake.requests.length;
    await run(provider, req);
    assert.deepEqual(
      fake.requests.slice(again).map((r) => [r.status, r.body.thinking]),
      [[200, { type: 'adaptive' }]],
      'learned: sent without the budget at once',
    );
    assert.deepEqual(told, ['claude-opus-5-5:thinking-budget'], 'told once');
  });

  it('a refusal that is not about a parameter stays a failure', async () => {
    const provider = createProvider({
      provider: 'anthropic',
      apiKey: 'k',
      baseUrl: fake.baseUrl,
      refused: new RefusedParameters(),
      retry: { maxRetries: 0 },
    });
    const r = await run(provider, request([user('x')], { model: 'claude-gone-1' }));
    assert.equal(r.message.stopReason, 'error');
    assert.equal(r.message.error?.status, 404);
  });
});

describe('a reply cut off at max_tokens mid-thinking', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('keeps no trailing thinking, so the next turn is not refused', async () => {
    assert.deepEqual(
      storableReply({
        role: 'assistant',
        content: [{ type: 'reasoning', text: 'so…', signature: 's' }],
        provider: 'anthropic',
        model: 'm',
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        stopReason: 'maxTokens',
        timestamp: 0,
      }).content,
      [],
    );
    h = await createHarness();
    h.server.script.push({ thinking: 'Let me think about this for a very long time…', stopReason: 'maxTokens' }, { text: 'Here it is.' });
    const cut = await h.turn('first question');
    assert.equal(cut.reason, 'done');
    const second = await h.turn('second question');
    assert.equal(second.reason, 'done', JSON.stringify(second.error));
    assert.deepEqual(
      h.server.requests.map((r) => r.status),
      [200, 200],
    );
    assert.ok(!h.view.some((m) => m.role === 'assistant' && m.content.at(-1)?.type === 'reasoning'), 'no stored reply ends in thinking');
  });
});
