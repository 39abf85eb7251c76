import assert from 'node:assert/strict';
import type { RecordedRequest } from '../fixtures/fake-provider/index';
import { createFakeWorld, MODEL, talk, type FakeWorld } from '../fixtures/app/fake-environment';

const isSummary = (r: RecordedRequest) => {
  const body = JSON.stringify(r.body);
  return body.includes('<transcript>') || body.includes('context compaction') || body.includes('consecutive parts of one coding session');
};

/**
 * Which model a summary goes to, through the session service: the session's model as it is now (after
 * a switch, also to another provider), or a configured summarizer model sized to its own window.
 */
describe('session service: the summary follows the session’s model', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  it('after a model switch the summary goes to the new model', async () => {
    const { service } = await world.open();
    world.server.setWindow('other-model', 200_000);
    await talk(world, service, 4);
    await service.turns.setModel({ provider: 'anthropic', model: 'other-model', thinking: 'off' });
    world.server.script.push({ text: 'Summary by the other model.' });
    assert.ok(await service.compactions.compact());
    const summaries = world.server.requests.filter(isSummary);
    assert.ok(summaries.length >= 1);
    assert.deepEqual([...new Set(summaries.map((r) => r.model))], ['other-model']);
  });

  it('after a switch to another provider the summary goes to that provider with its model', async () => {
    const { service, env } = await world.open({
      models: { [MODEL]: { contextWindow: 200_000, maxOutput: 8_000 }, 'gpt-other': { contextWindow: 128_000, maxOutput: 8_000 } },
    });
    world.server.setWindow('gpt-other', 128_000);
    await talk(world, service, 4);
    env.settingsNow.provider = { provider: 'openai', model: 'gpt-other', baseUrl: world.server.openaiBaseUrl, thinking: 'off' };
    await service.turns.setModel({ provider: 'openai', model: 'gpt-other', thinking: 'off' });
    world.server.script.push({ text: 'Summary through the other provider.' });
    const report = await service.compactions.compact();
    assert.ok(
      report?.strategies.some((s) => s === 'summary' || s === 'resummarize'),
      `a model summary: ${report?.strategies.join('+')}`,
    );
    const summaries = world.server.requests.filter(isSummary);
    assert.ok(summaries.length >= 1);
    for (const r of summaries) {
      assert.notEqual(r.protocol, 'anthropic', 'sent to the new provider');
      assert.equal(r.model, 'gpt-other');
      assert.equal(r.status, 200);
    }
  });

  it('a configured summarizer with a smaller window gets requests sized for its window', async () => {
    const { service } = await world.open({
      models: { [MODEL]: { contextWindow: 200_000, maxOutput: 8_000 }, 'small-sum': { contextWindow: 6_000, maxOutput: 1_000 } },
      compaction: { summarizerModel: 'small-sum', keepTurns: 0, resummarizeEvery: 10, native: true },
    });
    world.server.setWindow('small-sum', 6_000);
    await talk(world, service, 8);
    for (let i = 0; i < 30; i++) world.server.script.push({ text: `Part ${i} summary.` });
    const report = await service.compactions.compact();
    assert.ok(report?.strategies.includes('summary'), `summarized, not dropped: ${report?.strategies.join('+')}`);
    const summaries = world.server.requests.filter(isSummary);
    assert.ok(summaries.length >= 1);
    for (const r of summaries) {
      assert.equal(r.model, 'small-sum');
      assert.equal(r.status, 200, `a summary request of ${r.inputTokens} tokens fit the summarizer's 6,000`);
    }
  });
});
