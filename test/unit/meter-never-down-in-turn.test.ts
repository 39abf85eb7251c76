import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent, ContextUsage } from '../../src/agent/events';
import { heldUsage, MeterFloor } from '../../src/agent/meter-floor';
import type { BudgetViewModel } from '../../src/context/budget';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

/** Real public text of several content classes, each under the offload threshold so it enters the context whole. */
const CLASSES = ['code-javascript', 'ja-vite-docs', 'json-gemoji', 'log-apache', 'ru-vue-docs', 'emoji-gemoji', 'base64-png'];
const corpus = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'corpus', `${name}.txt`), 'utf8').slice(0, 3_000);

/**
 * The meter, as the panel receives it, never goes down during a turn except by a compaction or a
 * clear: sampled at every published figure through turns whose tool results are real text of several
 * classes (each first shown as a safe estimate, then counted, then confirmed by the provider).
 */
describe('meter: never goes down during a turn, except by a compaction', function () {
  this.timeout(240_000);
  let world: FakeWorld;
  before(async () => (world = await createFakeWorld(Object.fromEntries(CLASSES.map((c) => [`${c}.txt`, corpus(c)])))));
  after(async () => world?.close());

  it('samples every published figure through turns with code, CJK, JSON, logs, Cyrillic, emoji and base64 results', async () => {
    const { service } = await world.open();
    const turns: Array<Array<{ used: number; after?: string }>> = [];
    let current: Array<{ used: number; after?: string }> | undefined;
    let last: string | undefined;
    service.onDidEvent((e: AgentEvent) => {
      if (e.type === 'turn_start') turns.push((current = []));
      else if (e.type === 'turn_end') current = undefined;
      else if (e.type === 'compaction' || e.type === 'compaction_end') last = e.type;
      else if (e.type === 'context_usage' && current) {
        current.push({ used: e.usage.used, after: last });
        last = undefined;
      }
    });
    for (const [i, c] of CLASSES.entries()) {
      world.server.script.push(
        { toolCalls: [{ name: 'read_file', arguments: { path: `${c}.txt` } }] },
        { text: `Read ${c}: ${'noted '.repeat(40)}` },
      );
      await service.turns.prompt(`Turn ${i}: read ${c}.txt and tell me what it is.`);
    }
    assert.equal(turns.length, CLASSES.length);
    assert.ok(turns.flat().length >= 2 * CLASSES.length, `${turns.flat().length} figures sampled`);
    for (const [i, samples] of turns.entries()) {
      assert.ok(samples.length >= 1, `turn ${i}: ${samples.length} figures`);
      for (let k = 1; k < samples.length; k++) {
        const down = samples[k].used < samples[k - 1].used;
        assert.ok(!down || samples[k].after, `turn ${i} (${CLASSES[i]}): ${samples.map((s) => s.used).join(' → ')}`);
      }
    }
  });
});

describe('meter floor: the figures of one turn, in order', () => {
  const usage = (used: number): ContextUsage => ({
    used,
    effectiveWindow: 10_000,
    contextWindow: 12_000,
    ratio: used / 10_000,
    status: 'ok',
  });
  const figure = (used: number): AgentEvent => ({ type: 'context_usage', usage: usage(used) });
  const shownUsed = (events: AgentEvent[]) => events.flatMap((e) => (e.type === 'context_usage' ? [e.usage.used] : []));

  it('holds a lower figure back until the turn ends, and a measurement asked for meanwhile shows the figure on screen', () => {
    const floor = new MeterFloor();
    assert.equal(floor.shown(usage(3_400)).used, 3_400);
    floor.filter({ type: 'turn_start', turnId: 't' } as AgentEvent);
    assert.deepEqual(shownUsed(floor.filter(figure(3_300))), [3_400], 'the total on screen stays');
    assert.equal(floor.shown(usage(2_400)).used, 3_400, 'a remeasure during the turn does not dip');
    assert.deepEqual(shownUsed(floor.filter(figure(3_600))), [3_600]);
    assert.deepEqual(shownUsed(floor.filter(figure(3_500))), [3_600]);
    assert.deepEqual(shownUsed(floor.filter({ type: 'turn_end', turnId: 't', reason: 'done' } as AgentEvent)), [3_500]);
  });

  it('lets a compaction take the figure down during the turn', () => {
    const floor = new MeterFloor();
    floor.filter({ type: 'turn_start', turnId: 't' } as AgentEvent);
    assert.deepEqual(shownUsed(floor.filter(figure(9_000))), [9_000]);
    floor.filter({ type: 'compaction_end', outcome: 'done' });
    assert.deepEqual(shownUsed(floor.filter(figure(2_000))), [2_000]);
  });

  it('a held total carries the latest breakdown, scaled up to it, and a band that covers the gap', () => {
    // Before the tool result: 6,800 estimated. With it, counted and confirmed: 6,000 (a tool result of 600 among them).
    const budget = (used: number, toolResults: number): BudgetViewModel =>
      ({
        window: 12_000,
        effectiveWindow: 10_000,
        used,
        remaining: 10_000 - used,
        percent: used / 10_000,
        components: [
          { name: 'tools', tokens: used - toolResults - 400, fraction: 0 },
          { name: 'messages', tokens: 400, fraction: 0 },
          { name: 'toolResults', tokens: toolResults, fraction: 0 },
        ],
        confirmed: toolResults > 0,
        bandTokens: toolResults > 0 ? 0 : 900,
        untilCompact: 8_000 - used,
      }) as unknown as BudgetViewModel;
    const floor = new MeterFloor();
    floor.filter({ type: 'turn_start', turnId: 't' } as AgentEvent);
    floor.filter({ type: 'context_usage', usage: { ...usage(6_800), budget: budget(6_800, 0) } });
    const [shown] = floor.filter({ type: 'context_usage', usage: { ...usage(6_000), budget: budget(6_000, 600) } });
    assert.ok(shown?.type === 'context_usage' && shown.usage.budget);
    const b = shown.usage.budget;
    assert.equal(shown.usage.used, 6_800);
    assert.equal(b.used, 6_800);
    assert.equal(
      b.components.reduce((s, c) => s + c.tokens, 0),
      6_800,
      'the breakdown adds up to the total shown',
    );
    const results = b.components.find((c) => c.name === 'toolResults')!.tokens;
    assert.ok(results >= 600 && results <= 700, `the tool result is listed (${results})`);
    assert.equal(b.bandTokens, 800, 'the truth (6,000) lies within the band');
    assert.equal(b.untilCompact, 1_200);
    assert.deepEqual(heldUsage(usage(7_000), 6_800), usage(7_000), 'a figure above the floor is shown as it is');
  });
});
