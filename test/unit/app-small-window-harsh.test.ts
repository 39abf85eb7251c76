import assert from 'node:assert/strict';
import type { AgentEvent, TurnEndReason } from '../../src/agent/events';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';
import type { RecordedRequest } from '../fixtures/fake-provider';
import { bigCode, cjkDoc, runLargeOutputTurns, TURNS } from '../fixtures/scenarios/large-outputs';

const WINDOW = 8_000;
const MAX_OUTPUT = 1_500;
const MODEL = 'claude-sonnet-4-5';

/**
 * A Claude model in an 8k window, a provider that counts with a tokenizer harsher than Claude's, and
 * five turns of large tool outputs (code, numbers, a Chinese document), through the session service
 * with the product's token worker. Once the provider's usage has calibrated a class, a Claude estimate
 * (a tool result the worker has not counted yet, a summary request) is scaled on the worker's scale:
 * scaled as it was, the factor learned on the worker's figure cut the estimate by a third, and the
 * cache-preserving summary request (6,513 + 1,500 tokens) was sent into the 8,000-token window.
 */
describe('session service: an 8k Claude window, a harsher tokenizer, large outputs', function () {
  this.timeout(180_000);
  let world: FakeWorld | undefined;
  afterEach(async () => world?.close());

  it('5 turns: every turn ends with the answer, no request over the window as the provider counted it', async () => {
    world = await createFakeWorld(
      { 'big-module.ts': bigCode(), 'guide-zh.md': cjkDoc() },
      { server: { window: WINDOW, tokenizer: 'harsh', apiKey: 'test-key' }, tokenWorker: true },
    );
    world.server.setWindow(MODEL, WINDOW);
    const { service } = await world.open({
      models: { [MODEL]: { contextWindow: WINDOW, maxOutput: MAX_OUTPUT } },
      provider: { provider: 'anthropic', model: MODEL, baseUrl: world.server.baseUrl, thinking: 'off' },
    });
    const events: AgentEvent[] = [];
    const sub = service.onDidEvent((e) => events.push(e));
    let ends: TurnEndReason[];
    try {
      ends = await runLargeOutputTurns(world.server.script, (text) => service.turns.prompt(text), events);
    } finally {
      sub.dispose();
    }
    const shown = (r: RecordedRequest) => `${r.status}:${r.inputTokens}+${String(r.body.max_tokens)}`;
    const requests = world.server.requests;
    assert.deepEqual(ends, Array(TURNS).fill('done'), 'every turn ends with the model answer');
    assert.ok(
      requests.every((r) => r.status === 200 && r.inputTokens + Number(r.body.max_tokens ?? 0) <= WINDOW),
      `no request over the ${WINDOW}-token window as the provider counted it: ${requests.map(shown).join(', ')}`,
    );
    assert.ok(
      events.some((e) => e.type === 'compaction'),
      'at least one compaction ran',
    );
  });
});
