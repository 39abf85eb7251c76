/**
 * Context fidelity. A 300-turn scripted session through the real loop on the fake provider
 * (32k window, 10+ compactions) with a summarizer that remembers nothing, planting specifics at turns
 * spread over the session. After every compaction the next request is searched for each specific
 * planted before it (verbatim, or in the work ledger). Prints:
 *   fidelity_paths / _commands / _errors / _plan / _instructions / _pins
 *                                  worst share present over all compactions (target 1.0 each)
 *   fidelity_decisions             the same for decisions marked with update_plan (detail figure)
 *   fidelity_retrievable           share of removed content (user, assistant and tool text no longer in
 *                                  the last request) found by one search_history call (target 1.0)
 *   compaction_success_at_120pct   share of forced compactions of 100–120 %-full views, with a summarizer
 *                                  window of 15 % of the session, that end under the target (target 1.0)
 *   summary_cache_read_share       cached share of the input of the session's summary requests (≥ 0.8)
 *   post_compaction_ratio_with_ledger  effective window used right after an automatic compaction, worst
 *                                  case, ledger and re-hydrated files included (target ≤ 0.30)
 */
// figures: fidelity_paths fidelity_commands fidelity_errors fidelity_plan fidelity_instructions fidelity_pins fidelity_decisions fidelity_retrievable compaction_success_at_120pct summary_cache_read_share post_compaction_ratio_with_ledger
import { createCompactionChain } from '../src/agent/compaction';
import type { Message } from '../src/providers/types';
import { createMemoryResultPort } from '../src/tools/memory-results';
import { messageText } from '../src/tools/history-search';
import { fakeSummarizer, filler, session, tokensOf, total } from '../test/fixtures/compaction/factories';
import { FIDELITY_PINS, runFidelitySession, type Planted } from '../test/fixtures/compaction/fidelity-session';
import { median, r3, report } from './util';

async function fidelity(): Promise<void> {
  const started = performance.now();
  const run = await runFidelitySession(300, { answerBytes: 3500 });
  try {
    const kinds: Array<[string, (p: Planted) => string[]]> = [
      ['paths', (p) => p.paths],
      ['commands', (p) => p.commands.map((c) => `${c}\` → exit 0`)],
      ['errors', (p) => p.errors],
      ['plan', (p) => p.plan],
      ['instructions', (p) => p.instructions],
      ['pins', () => FIDELITY_PINS],
      ['decisions', (p) => p.decisions],
    ];
    const measured = run.after.filter((a) => a.request);
    for (const [kind, of] of kinds) {
      const shares = measured.map(({ request, planted }) => {
        const body = JSON.stringify(request!.body);
        const wanted = of(planted);
        return wanted.length ? wanted.filter((w) => body.includes(JSON.stringify(w).slice(1, -1))).length / wanted.length : 1;
      });
      const worst = shares.length ? Math.min(...shares) : 0;
      const planted = of(
        measured[measured.length - 1]?.planted ?? { paths: [], commands: [], errors: [], plan: [], decisions: [], instructions: [] },
      ).length;
      report({
        bench: `fidelity_${kind}`,
        value: r3(worst),
        unit: 'share',
        target: 1,
        better: 'higher',
        compactions: shares.length,
        plantedAtLast: planted,
      });
    }

    // Removed content of every role: turns whose marker text is no longer in the last request.
    const last = JSON.stringify(
      run.h.server.requests.filter((r) => !JSON.stringify(r.body.messages).includes('<transcript>')).at(-1)?.body ?? {},
    );
    const probes: Array<{ query: string; role: 'user' | 'assistant' | 'tool' }> = [];
    for (const e of run.transcript) {
      const text = messageText(e.message);
      const marker = /(ANSWER-\d+|INSTR-\d+|turn \d+: carry on|ERR-\d+|CMD-\d+ built)/.exec(text)?.[1];
      if (!marker || last.includes(marker)) continue;
      probes.push({ query: marker, role: e.message.role === 'toolResult' ? 'tool' : e.message.role });
    }
    let found = 0;
    for (const p of probes) {
      const r = await run.search.search({ query: p.query, role: p.role, limit: 1 }, new AbortController().signal);
      if (r.total > 0) found++;
    }
    report({
      bench: 'fidelity_retrievable',
      value: r3(probes.length ? found / probes.length : 0),
      unit: 'share',
      target: 1,
      better: 'higher',
      removedProbes: probes.length,
    });

    let read = 0;
    let all = 0;
    for (const r of run.summaryRequests) {
      const u = r.usage;
      if (!u) continue;
      read += u.cacheRead;
      all += u.input + u.cacheRead + u.cacheWrite;
    }
    report({
      bench: 'summary_cache_read_share',
      value: r3(all ? read / all : 0),
      unit: 'share',
      target: 0.8,
      better: 'higher',
      summaryRequests: run.summaryRequests.length,
      cachedPrefixRequests: run.cachedSummaries.length,
    });

    const eff = run.h.limits.effectiveWindow;
    const ratios = run.reports.filter((r) => r.trigger === 'threshold').map((r) => r.afterTokens / eff);
    report({
      bench: 'post_compaction_ratio_with_ledger',
      value: r3(ratios.length ? Math.max(...ratios) : 1),
      unit: 'ratio',
      target: 0.3,
      better: 'lower',
      median: r3(ratios.length ? median(ratios) : 1),
      compactions: run.reports.length,
      errors: run.errors.length,
      sessionSeconds: r3((performance.now() - started) / 1000),
    });
  } finally {
    await run.close();
  }
}

/** Forced compactions of views at 100–120 % of the window with a summarizer whose window is 15 % of it. */
async function at120(): Promise<void> {
  const WINDOW = 20_000;
  const { server, provider } = await fakeSummarizer();
  server.setWindow('small-summarizer', 4000);
  let ok = 0;
  const fills = [1.0, 1.05, 1.1, 1.15, 1.2, 1.2, 1.1, 1.0];
  const strategies: string[] = [];
  try {
    for (const [k, fill] of fills.entries()) {
      for (let i = 0; i < 200; i++) server.script.push(() => ({ text: `## Goal\nPart ${i} of pass ${k}.` }));
      const chain = createCompactionChain({
        summarizer: provider,
        summarizerModel: 'small-summarizer',
        results: createMemoryResultPort(),
        summarizerWindow: 3000,
      });
      const view: Message[] = [];
      for (let i = 0; total(view) < fill * WINDOW; i++)
        view.push(...session(1, 400 + ((i * 37 + k) % 900), () => `step ${i}: ${filler(600 + ((i * 53) % 700), `s${i}`)}`));
      const targetTokens = Math.floor(0.3 * WINDOW);
      const out = await chain.run(
        { messages: view, tokensOf, targetTokens, trigger: 'threshold', effectiveWindow: WINDOW },
        new AbortController().signal,
      );
      if (out && out.afterTokens <= targetTokens) ok++;
      strategies.push(out ? out.strategies.join('+') : 'none');
      server.script.length = 0;
    }
  } finally {
    await server.close();
  }
  report({
    bench: 'compaction_success_at_120pct',
    value: r3(ok / fills.length),
    unit: 'share',
    target: 1,
    better: 'higher',
    passes: fills.length,
    strategies,
  });
}

async function main(): Promise<void> {
  await at120();
  await fidelity();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
