import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent, ContextUsage } from '../../src/agent/events';
import { MeterFloor } from '../../src/agent/meter-floor';
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
    assert.deepEqual(shownUsed(floor.filter(figure(3_300))), []);
    assert.equal(floor.shown(usage(2_400)).used, 3_400, 'a remeasure during the turn does not dip');
    assert.deepEqual(shownUsed(floor.filter(figure(3_600))), [3_600]);
    assert.deepEqual(shownUsed(floor.filter(figure(3_500))), []);
    assert.deepEqual(shownUsed(floor.filter({ type: 'turn_end', turnId: 't', reason: 'done' } as AgentEvent)), [3_500]);
  });

  it('lets a compaction take the figure down during the turn', () => {
    const floor = new MeterFloor();
    floor.filter({ type: 'turn_start', turnId: 't' } as AgentEvent);
    assert.deepEqual(shownUsed(floor.filter(figure(9_000))), [9_000]);
    floor.filter({ type: 'compaction_end', outcome: 'done' });
    assert.deepEqual(shownUsed(floor.filter(figure(2_000))), [2_000]);
  });
});
