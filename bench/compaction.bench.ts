/**
 * Compaction benchmarks. 200-turn scripted sessions through the real loop with the
 * compaction chain as the gate's hook and a summarizer on the fake provider that forgets everything (so
 * retention is Headroom's, not the model's); windows of 32k and 64k tokens. Prints:
 *   post_compaction_ratio   effective window used right after an automatic compaction, worst of all
 *                           compactions of both sessions (target ≤ 0.30; median as detail)
 *   planted_fact_retention  share of planted user instructions and pins present in the request after the
 *                           last compaction, worst of the two sessions (target 1.0)
 *   compaction_ms           median duration of a compaction (fake provider, loopback HTTP), all sessions,
 *                           plus a 200k-token view compacted 5 times (detail)
 */
// figures: post_compaction_ratio planted_fact_retention compaction_ms
import { createCompactionChain } from '../src/agent/compaction';
import type { Message } from '../src/providers/types';
import { createMemoryResultPort } from '../src/tools/memory-results';
import { fakeSummarizer, session, tokensOf, filler } from '../test/fixtures/compaction/factories';
import { PINS, runPlantedSession } from '../test/fixtures/compaction/planted-session';
import { median, r3, report } from './util';

async function plantedRun(window: number, answerBytes: number) {
  const run = await runPlantedSession(200, { window, answerBytes });
  try {
    const eff = run.h.limits.effectiveWindow;
    const ratios = run.reports.filter((r) => r.trigger === 'threshold').map((r) => r.afterTokens / eff);
    const k = run.requestAfter.length - 1;
    const body = k >= 0 ? JSON.stringify(run.h.server.requests[run.requestAfter[k]].body) : '';
    const facts = k >= 0 ? [...run.plantedBefore[k], ...PINS] : [];
    const kept = facts.filter((f) => body.includes(f)).length;
    return {
      window,
      ratios,
      // No compaction, no planted facts: nothing was measured, which must not read as "all retained".
      retention: facts.length ? kept / facts.length : Number.NaN,
      facts: facts.length,
      durations: run.reports.map((r) => r.durationMs),
      compactions: run.reports.length,
      overflows: run.h.server.requests.filter((r) => r.outcome === 'overflow').length,
      errors: run.errors.length,
    };
  } finally {
    await run.close();
  }
}

async function bigView(): Promise<number[]> {
  const { server, provider } = await fakeSummarizer();
  try {
    const durations: number[] = [];
    for (let i = 0; i < 5; i++) {
      server.script.push({ text: 'summary' });
      const chain = createCompactionChain({ summarizer: provider, summarizerModel: 'fake-model', results: createMemoryResultPort() });
      const view: Message[] = session(250, 3000, (t) => `instruction ${t}: ${filler(200, `x${t}`)}`);
      const t0 = performance.now();
      await chain.run(
        { messages: view, tokensOf, targetTokens: 60_000, trigger: 'threshold', effectiveWindow: 200_000 },
        new AbortController().signal,
      );
      durations.push(performance.now() - t0);
    }
    return durations;
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const runs = [await plantedRun(64_000, 5000), await plantedRun(32_000, 1500)];
  const ratios = runs.flatMap((r) => r.ratios);
  // Math.max() of nothing is -Infinity: report NaN so the runner fails a bench that measured nothing.
  const worst = (xs: number[], pick: (...v: number[]) => number) => (xs.length ? pick(...xs) : Number.NaN);
  report({
    bench: 'post_compaction_ratio',
    value: r3(worst(ratios, Math.max)),
    unit: 'ratio',
    target: 0.3,
    better: 'lower',
    median: ratios.length ? r3(median(ratios)) : null,
    compactions: runs.map((r) => `${r.window}: ${r.compactions}`).join(', '),
    overflows: runs.reduce((s, r) => s + r.overflows, 0),
    errors: runs.reduce((s, r) => s + r.errors, 0),
  });
  report({
    bench: 'planted_fact_retention',
    value: r3(
      worst(
        runs.map((r) => r.retention),
        Math.min,
      ),
    ),
    unit: 'share',
    target: 1,
    better: 'higher',
    facts: runs.map((r) => `${r.window}: ${r.facts}`).join(', '),
  });
  const big = await bigView();
  const all = runs.flatMap((r) => r.durations);
  report({
    bench: 'compaction_ms',
    value: all.length ? r3(median(all)) : Number.NaN,
    unit: 'ms',
    better: 'lower',
    samples: all.length,
    view_200k_median_ms: r3(median(big)),
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
