import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import type { ContextUsage } from '../../src/agent/events';
import { COMPONENT_NAMES, type BudgetComponents } from '../../src/context/budget';
import { PRIOR_BAND } from '../../src/context/estimate-band';
import { buildSystemSections } from '../../src/context/system-prompt';
import { TokenLedger } from '../../src/context/token-ledger';
import { createHarness, externalTools, MODEL, type Harness } from '../fixtures/agent/harness';
import { prose } from '../fixtures/agent/fill';
import { o200kCounter } from '../fixtures/context/o200k-counter';
import { analyzeAnthropic } from '../fixtures/fake-provider/anthropic-wire';
import { countSentComponents as countSent } from '../fixtures/fake-provider/count-components';

const AGENTS_MD = Array.from(
  { length: 60 },
  (_, i) => `- Rule ${i}: keep functions pure, name files in kebab-case and test every fix (${i}).`,
).join('\n');

describe('meter: every component is measured where it lives and matches the request sent', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(async () => h?.close());

  it('rules, deferred-tool stubs and the summary each show up in their own component, within the band', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`src/f${i}.ts`] = prose(600, i);
    h = await createHarness({
      window: 32_000,
      files,
      external: externalTools(6),
      // The chain is made below, once the harness's provider exists; the hook runs only during turns.
      gate: { ledger: new TokenLedger(await o200kCounter()), compact: (input, signal) => chain.hook(input, signal) },
    });
    const chain = createCompactionChain({ summarizer: h.provider, summarizerModel: MODEL, results: h.results });
    h.system = buildSystemSections({ rules: [{ path: 'AGENTS.md', text: AGENTS_MD }] });
    assert.ok(h.registry.selection().deferred.length >= 3, 'external tools are deferred');

    for (let i = 0; i < 5; i++) {
      h.server.script.push(
        { toolCalls: [{ id: `r${i}`, name: 'read_file', arguments: { path: `src/f${i}.ts` } }] },
        { text: `Read f${i}: ${prose(2000, i + 9)}` },
      );
      await h.turn(`Please read src/f${i}.ts and tell me about it. ${prose(200, i + 3)}`);
    }
    // The model asks for a compaction: the summarizer is called, then the main request goes out.
    h.server.script.push(
      { toolCalls: [{ id: 'k', name: 'compact_context', arguments: { focus: 'the files read' } }] },
      { text: 'Summary: five files were read; each holds prose about context windows. Next: refactor.' },
      { text: 'Compacted, carrying on.' },
    );
    let compacted = false;
    await h.turn('Compact, then go on.', undefined, (e) => {
      if (e.type === 'compaction') compacted ||= e.report.strategies.includes('summary');
    });
    assert.ok(compacted, 'a summary compaction ran');
    // One more turn with a tool result: what the meter showed right before the last request was sent.
    h.server.script.push({ toolCalls: [{ id: 'again', name: 'read_file', arguments: { path: 'src/f0.ts' } }] }, { text: 'Done.' });
    let latest: ContextUsage | undefined;
    let shownBeforeSend: ContextUsage | undefined;
    await h.turn('Read src/f0.ts again.', undefined, (e) => {
      if (e.type === 'context_usage') latest = e.usage;
      if (e.type === 'message_start' && e.role === 'assistant') shownBeforeSend = latest;
    });
    const sent = h.server.requests[h.server.requests.length - 1];
    const shown = shownBeforeSend!.budget!;
    const truth = countSent(sent.body);

    const byName = Object.fromEntries(shown.components.map((c) => [c.name, c.tokens])) as unknown as BudgetComponents;
    for (const name of ['system', 'rules', 'tools', 'deferredTools', 'summary', 'messages', 'toolResults'] as const) {
      assert.ok(truth[name] > 0, `the request carries ${name}`);
      assert.ok(byName[name] > 0, `the meter shows ${name} (${JSON.stringify(byName)})`);
    }
    // Each component within the band of an uncalibrated tokenizer count (the total is confirmed, the split
    // is ours), plus the framing of each wire block (a few tokens).
    const blocks = analyzeAnthropic(sent.body).blocks.length;
    for (const name of COMPONENT_NAMES) {
      const slack = Math.max(shown.errorBand, PRIOR_BAND.code) * truth[name] + 4 * blocks;
      assert.ok(
        Math.abs(byName[name] - truth[name]) <= slack,
        `${name}: shown ${byName[name]}, sent ${truth[name]} (±${slack.toFixed(0)})`,
      );
    }
    const trueTotal = COMPONENT_NAMES.reduce((s, n) => s + truth[n], 0);
    assert.equal(sent.inputTokens, trueTotal, 'the independent count is the whole request');
    assert.ok(
      Math.abs(shown.used - trueTotal) <= shown.errorBand * trueTotal,
      `total: shown ${shown.used}, sent ${trueTotal} ±${(shown.errorBand * 100).toFixed(1)} %`,
    );
  });

  it('the bar, the breakdown and the gate projection are one total', async () => {
    h = await createHarness({ window: 32_000, external: externalTools(6) });
    h.system = buildSystemSections({ rules: [{ path: 'AGENTS.md', text: AGENTS_MD }] });
    h.server.script.push({ text: 'hello' });
    await h.turn('hi');
    const system = [...h.system, { id: 'deferred-tools', text: h.registry.selection().note! }];
    const tools = h.registry.definitionsForRequest();
    const decision = await h.gate.preflight({ messages: h.view, system, tools, reason: 'final' }, new AbortController().signal);
    const usage = h.gate.measure(h.view);
    const sum = usage.budget!.components.reduce((s, c) => s + c.tokens, 0);
    assert.equal(usage.used, sum);
    assert.equal(usage.used, decision.projection!.total);
    assert.ok(usage.budget!.components.find((c) => c.name === 'rules')!.tokens > 0);
    assert.ok(usage.budget!.components.find((c) => c.name === 'deferredTools')!.tokens > 0);
  });
});
