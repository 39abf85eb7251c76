import assert from 'node:assert/strict';
import type { ContextUsage } from '../../src/agent/events';
import { TokenLedger } from '../../src/context/token-ledger';
import { meterFromUsage } from '../../src/panel/meter-view';
import { createHarness, type Harness } from '../fixtures/agent/harness';
import { prose } from '../fixtures/agent/fill';
import { o200kCounter } from '../fixtures/context/o200k-counter';
import { base64Run, cjkRun, minifiedLine, seeded } from '../fixtures/context/factories';

/** Runs a turn and returns what the meter showed right before the turn's first request went out. */
async function turnShowing(h: Harness, text: string): Promise<ContextUsage> {
  let latest: ContextUsage | undefined;
  let shown: ContextUsage | undefined;
  await h.turn(text, undefined, (e) => {
    if (e.type === 'context_usage') latest = e.usage;
    if (e.type === 'message_start' && e.role === 'assistant') shown ??= latest;
  });
  return shown!;
}

describe('meter: the provider-confirmed base and an honest error band', function () {
  this.timeout(120_000);
  let h: Harness;
  afterEach(async () => h?.close());

  it('after a response the reported input of that exact request is the confirmed base, and the rest is an estimated delta', async () => {
    h = await createHarness({ gate: { ledger: new TokenLedger(await o200kCounter()) } });
    h.server.script.push({ text: `An answer: ${prose(1200, 3)}` });
    await h.turn(`A question: ${prose(800, 1)}`);
    const sent = h.server.requests[0];
    const usage = h.gate.measure(h.view);
    const b = usage.budget!;
    assert.equal(b.confirmed, true);
    assert.equal(b.confirmedTokens, sent.inputTokens, 'the base is what the provider counted for that request');
    assert.ok(b.estimatedTokens > 0, 'the reply is estimated on top');
    assert.equal(b.used, (b.confirmedTokens ?? 0) + b.estimatedTokens);
    assert.equal(
      b.components.reduce((s, c) => s + c.tokens, 0),
      b.used,
      'the breakdown adds up to the figure shown',
    );
    assert.match(meterFromUsage(usage).accuracy, /^[\d.]+k? from the server \+ [\d.]+k? estimated \(±[\d.]+k?\)$/);

    // Before any report (or once the view no longer holds the reported request) the figure is an estimate.
    h.view = [...h.view.map((m) => ({ ...m }))] as typeof h.view;
    const fresh = h.gate.measure(h.view).budget!;
    assert.equal(fresh.confirmed, false);
    assert.match(fresh.accuracy, /^estimated ±\d+ %$/);
  });

  it('the band shown before each request contains the true count, on mixed content including a page of one repeated character', async () => {
    h = await createHarness({ gate: { ledger: new TokenLedger(await o200kCounter()) } });
    const rnd = seeded(11);
    const pages = [
      `Some prose: ${prose(3000, 2)}`,
      Array.from({ length: 60 }, (_, i) => `export function f${i}(x: number): number { return x * ${i} + 1; }`).join('\n'),
      JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', 'b'], value: i * 3.14 }))),
      'a'.repeat(4000),
      base64Run(rnd, 3000),
      cjkRun(rnd, 1500),
      '-'.repeat(3000),
      minifiedLine(3000),
      `${prose(1000, 5)}\n${'='.repeat(2000)}\n${cjkRun(rnd, 300)}`,
      `More prose: ${prose(3000, 9)}`,
    ];
    h.server.script.push({ text: 'ready' });
    await h.turn('hello');
    const misses: string[] = [];
    for (const [i, page] of pages.entries()) {
      h.server.script.push({ text: `Noted page ${i}.` });
      const before = h.server.requests.length;
      const shown = (await turnShowing(h, page)).budget!;
      const truth = h.server.requests[before].inputTokens;
      const line = `page ${i}: shown ${shown.used} ±${shown.bandTokens} (${shown.confirmedTokens} confirmed + ${shown.estimatedTokens}), sent ${truth}`;
      if (Math.abs(shown.used - truth) > shown.bandTokens) misses.push(line);
      assert.ok(shown.confirmed, `page ${i} rests on the confirmed base`);
    }
    assert.deepEqual(misses, []);
  });
});
