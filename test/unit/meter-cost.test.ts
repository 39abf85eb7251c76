import assert from 'node:assert/strict';
import type { AgentEvent, CompactionReport } from '../../src/agent/events';
import { SpendRecorder } from '../../src/agent/spend-recorder';
import { addSpend, cacheSavings, costOf, emptySpend, spendTotal } from '../../src/context/cost';
import { MODEL_TABLE, pricesFor } from '../../src/context/models';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import type { HostToWebview, MeterView } from '../../src/protocol/messages';
import { usageEvent, user } from './panel-factories';

const turnStart: AgentEvent = { type: 'turn_start', turnId: 't', prompt: user('go') };
const usage = (model: string, input: number, output: number, cacheRead = 0, cacheWrite = 0): AgentEvent => ({
  type: 'usage',
  model,
  usage: { input, output, cacheRead, cacheWrite },
});
const end: AgentEvent = { type: 'turn_end', turnId: 't', reason: 'done', messages: [] };

function setup() {
  const posted: HostToWebview[] = [];
  const p = new ChatPresenter(
    (m) => posted.push(m),
    () => 1_000,
  );
  const meter = (): MeterView =>
    posted.filter((m): m is Extract<HostToWebview, { type: 'context/usage' }> => m.type === 'context/usage').at(-1)!.meter;
  return { p, run: (...events: AgentEvent[]) => events.forEach((e) => p.handle(e)), meter };
}

describe('meter: what the session costs and what the cache saved', () => {
  it('prices every model in the table, Anthropic cache reads at a tenth and writes at 1.25 × input', () => {
    for (const row of MODEL_TABLE) assert.ok(row.price.input > 0 && row.price.output > 0, `${row.match} has prices`);
    const p = pricesFor('claude-sonnet-4-5-20250929')!;
    assert.deepEqual(p, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    const u = { input: 1_000, output: 500, cacheRead: 30_000, cacheWrite: 2_000 };
    assert.ok(Math.abs(costOf(u, p) - 0.027) < 1e-12);
    // 30k tokens read at 0.30 instead of 3.00, minus the 0.75 premium on 2k written.
    assert.ok(Math.abs(cacheSavings(u, p) - 0.0795) < 1e-12);
    assert.equal(pricesFor('my-local-llama'), undefined);
  });

  it('shows this turn, the session and the cache savings, as the spend recorder counts them', () => {
    const s = setup();
    const recorder = new SpendRecorder({ model: () => 'claude-sonnet-4-5', onChange: (state) => s.p.setSpend(state) });
    const run = (...events: AgentEvent[]) =>
      events.forEach((e) => {
        recorder.handle(e);
        s.p.handle(e);
      });
    run(
      turnStart,
      usageEvent({ messages: 1_000 }),
      usage('claude-sonnet-4-5', 1_000, 500, 30_000, 2_000),
      usage('claude-sonnet-4-5', 2_000, 100),
      end,
    );
    // 0.027 + (2000 × 3 + 100 × 15) / 1e6 = 0.0345
    assert.equal(s.meter().costLabel, '$0.035 this turn · $0.035 session · cache saved $0.08');
    run(turnStart, usage('claude-sonnet-4-5', 10_000, 1_000), end);
    assert.equal(s.meter().costLabel, '$0.045 this turn · $0.08 session · cache saved $0.08');
    s.p.load([]);
    run(turnStart, usage('claude-sonnet-4-5', 1_000, 0), end);
    assert.match(s.meter().costLabel ?? '', /\$0\.083 session/, 'a reload of the transcript (clear) keeps the session total');
  });

  it("a resumed session shows its stored total, not the window's", () => {
    const s = setup();
    const stored = addSpend(emptySpend(), { input: 100_000, output: 10_000, cacheRead: 0, cacheWrite: 0 }, pricesFor('claude-sonnet-4-5'));
    const recorder = new SpendRecorder({ seed: stored, model: () => 'claude-sonnet-4-5', onChange: (state) => s.p.setSpend(state) });
    s.p.setSpend(recorder.state);
    s.run(usageEvent({ messages: 1_000 }));
    assert.equal(s.meter().costLabel, '$0.45 session');
    for (const e of [turnStart, usage('claude-sonnet-4-5', 10_000, 0), end]) recorder.handle(e);
    assert.equal(s.meter().costLabel, '$0.03 this turn · $0.48 session');
  });

  it('says the cost is unknown for a model without prices instead of showing $0', () => {
    const s = setup();
    const recorder = new SpendRecorder({ model: () => 'my-local-llama', onChange: (state) => s.p.setSpend(state) });
    for (const e of [turnStart, usageEvent({ messages: 1_000 }), usage('my-local-llama', 5_000, 100), end]) {
      recorder.handle(e);
      s.p.handle(e);
    }
    assert.equal(s.meter().costLabel, 'cost unknown (no prices for this model)');
  });

  it('a compaction card says how long it took and what its summary cost', () => {
    const s = setup();
    s.run(turnStart, usageEvent({ messages: 1_000 }), usage('claude-haiku-4-5', 100, 10));
    const report: CompactionReport = {
      beforeTokens: 90_000,
      afterTokens: 20_000,
      beforeMessages: 50,
      afterMessages: 6,
      strategies: ['summary'],
      durationMs: 4_200,
      trigger: 'threshold',
      cost: { input: 80_000, output: 2_000, cacheRead: 0, cacheWrite: 0 },
    };
    s.run({ type: 'compaction', report });
    const card = s.p.transcript.items.find((i) => i.kind === 'compaction')!;
    assert.ok(card.kind === 'compaction');
    assert.equal(card.durationMs, 4_200);
    assert.ok(Math.abs((card.cost ?? 0) - 0.09) < 1e-12, String(card.cost)); // 80k × $1 + 2k × $5 per MTok
    assert.match(card.text, /Took 4\.2 s, cost \$0\.09\.$/);
    const recorder = new SpendRecorder({ model: () => 'claude-haiku-4-5' });
    recorder.handle({ type: 'compaction', report });
    assert.ok(Math.abs((spendTotal(recorder.state.spend) ?? 0) - 0.09) < 1e-12, 'the summary counts towards the session cost');
  });
});
