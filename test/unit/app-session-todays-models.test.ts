import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent } from '../../src/agent/events';
import type { SessionService } from '../../src/app/session-service';
import { modelOptions } from '../../src/context/model-choice';
import { modelInfoView } from '../../src/panel/model-view';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';
import type { RecordedRequest } from '../fixtures/fake-provider';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';

const FILES = ['code-javascript', 'ja-vite-docs', 'json-gemoji', 'log-apache', 'ru-vue-docs', 'shell-find-paths'];
const corpus = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'corpus', `${name}.txt`), 'utf8').slice(0, 3_500);
const messagesRequests = (rs: readonly RecordedRequest[]) => rs.filter((r) => r.path.startsWith('/v1/messages'));

/**
 * A session against a fake that plays today's Anthropic API by its published rules: a Models API
 * lineup with 1M and 32k windows, adaptive-only thinking, a tokenizer that is not o200k (the harsh
 * one), conversations that end in thinking refused.
 */
describe("today's models, as the provider describes them: a session through the service", function () {
  this.timeout(600_000);
  let world: FakeWorld;
  before(async () => {
    world = await createFakeWorld(Object.fromEntries(FILES.map((f) => [`${f}.txt`, corpus(f)])), {
      server: { window: 200_000, apiKey: 'test-key', lineup: TODAYS_LINEUP, tokenizer: 'harsh' },
    });
  });
  after(async () => world?.close());

  async function openOn(
    model: string,
    thinking: 'off' | 'low' | 'medium' | 'high' | 'max',
  ): Promise<{ service: SessionService; events: AgentEvent[] }> {
    const { service } = await world.open({ models: {} });
    await service.sessions.create();
    await service.turns.setModel({ provider: 'anthropic', model, thinking });
    const events: AgentEvent[] = [];
    service.onDidEvent((e) => events.push(e));
    return { service, events };
  }

  it("the model picker lists the key's models from the Models API: the retired one left out, the deprecated one says so", async () => {
    const { service } = await world.open({ models: {} });
    const { vendorModels, thinkingFor } = await service.models.pickerModels();
    assert.deepEqual(
      vendorModels.anthropic?.map((m) => m.id),
      ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-petite-5', 'claude-sonnet-4-5'],
    );
    const options = modelOptions({ current: service.models.choice(), languageModels: [], serverUrl: undefined, vendorModels });
    const described = Object.fromEntries(options.filter((o) => o.provider === 'anthropic').map((o) => [o.model, o.description]));
    assert.match(described['claude-opus-5-5'], /^1M window · \$4 in \/ \$20 out per M tokens .* · adaptive thinking$/);
    assert.match(described['claude-petite-5'], /^32k window · price unknown · adaptive thinking$/);
    assert.match(described['claude-sonnet-4-5'], /deprecated, retires 2026-11-30$/);
    const levels = (model: string) => thinkingFor('anthropic', model).map((o) => o.level);
    assert.deepEqual(levels('claude-opus-5-5'), ['low', 'medium', 'high', 'max'], 'its thinking is always on: no off');
    assert.deepEqual(levels('claude-petite-5'), ['off', 'low', 'medium', 'high']);
    // Off and three levels, as a budget model lists them, yet the provider said adaptive: efforts, not budgets.
    assert.deepEqual(
      thinkingFor('anthropic', 'claude-petite-5').map((o) => o.request?.mode),
      ['disabled', 'adaptive', 'adaptive', 'adaptive'],
    );
  });

  it('a 1M-window adaptive model at thinking "high": its window and prices, adaptive thinking with the effort, no 400', async () => {
    const { service } = await openOn('claude-opus-5-5', 'high');
    const from = world.server.requests.length;
    for (let i = 0; i < 3; i++) {
      world.server.script.push({ thinking: `Thinking about step ${i}.`, text: `Step ${i} done.` });
      await service.turns.prompt(`Step ${i}: ${'plan the change carefully. '.repeat(30)}`);
    }
    const sent = messagesRequests(world.server.requests.slice(from));
    assert.deepEqual(
      sent.map((r) => r.status),
      [200, 200, 200],
    );
    for (const r of sent) {
      assert.deepEqual([r.body.thinking, r.body.output_config], [{ type: 'adaptive' }, { effort: 'high' }]);
      assert.ok(
        !('temperature' in r.body) && !('top_p' in r.body) && !('top_k' in r.body) && !JSON.stringify(r.body).includes('budget_tokens'),
      );
    }
    const limits = service.models.limits();
    assert.deepEqual([limits.contextWindow, limits.source, limits.maxOutput], [1_000_000, 'provider', 128_000]);
    // Its thinking is inside max_tokens: the reservation is the model's output limit, the usable input the rest but the buffer.
    assert.equal(limits.effectiveWindow, 1_000_000 - 128_000 - 20_000);
    assert.deepEqual(modelInfoView(limits, 'high'), { window: '1M', price: '$4 / $20 per M tokens', thinking: 'high', images: true });
    const usage = service.turns.measure();
    assert.equal(usage.contextWindow, 1_000_000);
    // The compact marker sits at 95 % of the real effective window, not of a 200k table row's.
    assert.equal(usage.budget!.effectiveWindow, 852_000);
    assert.equal(usage.budget!.markers.compact, 0.95);
    assert.ok(usage.budget!.confirmed, 'the figure rests on what the provider counted');
  });

  it('a 32k model whose tokenizer Headroom cannot reproduce never gets a request over its window, and compacts', async () => {
    const { service, events } = await openOn('claude-petite-5', 'medium');
    const from = world.server.requests.length;
    const counted = world.server.counts.length;
    for (let i = 0; i < 16; i++) {
      const file = FILES[i % FILES.length];
      world.server.script.push(
        { toolCalls: [{ name: 'read_file', arguments: { path: `${file}.txt` } }] },
        { text: `Turn ${i}: ${file} read. ${'Findings noted in detail. '.repeat(150)}` },
      );
      await service.turns.prompt(`Turn ${i}: read ${file}.txt and summarize it. ${'Keep every name exact. '.repeat(20)}`);
    }
    const sent = messagesRequests(world.server.requests.slice(from)).filter((r) => r.path === '/v1/messages');
    const over = sent.filter((r) => r.status !== 200 || r.inputTokens + Number(r.body.max_tokens) > 32_000);
    assert.deepEqual(
      over.map((r) => `${r.model} ${r.outcome}: ${r.inputTokens} + ${String(r.body.max_tokens)}`),
      [],
      `${sent.length} requests`,
    );
    // The provider's own limits: max_tokens never above the model's 8k.
    assert.ok(sent.every((r) => Number(r.body.max_tokens) <= 8_000));

    assert.ok(
      events.some((e) => e.type === 'compaction'),
      'the small window was compacted',
    );
    assert.ok(world.server.counts.length > counted, 'the provider counted requests it could not be estimated for exactly');
  });

  it('a reply cut off mid-thinking: the session goes on (no assistant message ends in thinking)', async () => {
    const { service } = await openOn('claude-sonnet-5-5', 'high');
    const from = world.server.requests.length;
    world.server.script.push({ thinking: 'A long line of thought that runs out of room…', stopReason: 'maxTokens' });
    await service.turns.prompt('Think about everything.');
    world.server.script.push({ text: 'Here is the short answer.' });
    await service.turns.prompt('Then answer briefly.');
    world.server.script.push({ text: 'And more.' });
    await service.turns.prompt('Go on.');
    assert.deepEqual(
      messagesRequests(world.server.requests.slice(from))
        .filter((r) => r.path === '/v1/messages')
        .map((r) => r.status),
      [200, 200, 200],
    );
  });

  it('a model the table does not know: "window unknown — assumed", then the provider is asked before its first request', async () => {
    const { service } = await world.open({ models: {} });
    await service.sessions.create();
    await service.turns.setModel({ provider: 'anthropic', model: 'claude-petite-5', thinking: 'off' });
    const from = world.server.requests.length;
    world.server.script.push({ text: 'hello' });
    await service.turns.prompt('hi');
    const first = messagesRequests(world.server.requests.slice(from)).find((r) => r.path === '/v1/messages')!;
    assert.equal(first.body.max_tokens, 8_000, "the provider's output limit, not a quarter of an assumed 128k");
    assert.deepEqual([service.models.limits().contextWindow, service.models.limits().source], [32_000, 'provider']);
    const unknown = modelInfoView({ ...service.models.limits(), source: 'default', contextWindow: 128_000 }, 'off');
    assert.deepEqual([unknown.window, unknown.windowAssumed], ['128k', true]);
  });
});
