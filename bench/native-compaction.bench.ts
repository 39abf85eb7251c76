/**
 * The cost of a 100-turn session whose compactions are the provider's own (Anthropic
 * `compact_20260112`, paused, over the agent's cached prefix) against the same session whose
 * compactions are Headroom's cache-preserving summary: the same script of turns, the same fake (a
 * model whose Models API entry declares compaction, a 90k window), every request billed at Claude
 * Sonnet 5.5's prices from the model table (agent requests, summary requests, and the compaction
 * iterations of `usage.iterations`). Prints:
 *   session_cost_100_turns_native_usd   dollars of the session with native compaction (target ≤ $6)
 *   session_cost_100_turns_summary_usd  dollars of the session with Headroom's summary (target ≤ $6)
 *   native_vs_summary_cost_ratio        native / summary (target ≤ 1: native compaction must not cost more)
 *   native_compactions_100_turns        compactions the provider made in the native session (target ≥ 3)
 */
// figures: session_cost_100_turns_native_usd session_cost_100_turns_summary_usd native_vs_summary_cost_ratio native_compactions_100_turns
import { createCompactionChain } from '../src/agent/compaction';
import { costOf } from '../src/context/cost';
import { pricesFor } from '../src/context/models';
import { MIN_COMPACTION_TRIGGER } from '../src/providers/anthropic-compaction';
import { createMemoryResultPort } from '../src/tools/memory-results';
import { createHarness, MODEL, type Harness } from '../test/fixtures/agent/harness';
import { filler } from '../test/fixtures/compaction/factories';
import { startFakeProvider } from '../test/fixtures/fake-provider';
import { r3, report } from './util';

const TURNS = 100;
const WINDOW = 90_000;
const PRICED_AS = 'claude-sonnet-5-5';

async function session(native: boolean): Promise<{ usd: number; compactions: number }> {
  const server = await startFakeProvider({
    lineup: [{ id: MODEL, window: WINDOW, maxOutput: 8192, thinking: 'none', contextManagement: ['compact_20260112'] }],
  });
  const box: { h?: Harness } = {};
  const chain = createCompactionChain({
    results: createMemoryResultPort(),
    get summarizer() {
      return box.h!.provider;
    },
    nativeCompaction: native ? () => ({ minTokens: MIN_COMPACTION_TRIGGER }) : undefined,
    ledger: () => '## Work ledger\n- edited src/server.ts',
  });
  const h = await createHarness({ window: WINDOW, server, gate: { compact: (input, signal) => chain.hook(input, signal) } });
  box.h = h;
  h.config.request = { cacheTail: true };
  try {
    for (let i = 0; i < TURNS; i++) {
      // The fake answers by what each request asks, so a summary request cannot shift the turns' replies;
      // one answer for the turn and one for a summary request Headroom may make, none left over.
      const answer = (req: { body: Record<string, unknown> }) =>
        JSON.stringify((req.body.messages as unknown[]).at(-1)).includes('Headroom: context compaction')
          ? { text: `## Goal\nThe summary after turn ${i}.\n## User instructions\n- keep the port at 8080` }
          : { text: `answer ${i}: done.` };
      h.server.script.splice(0);
      h.server.script.push(answer, answer);
      await h.turn(`${i === 0 ? 'Always keep the port at 8080. ' : ''}step ${i}: ${filler(12_000, `step ${i}`)}`);
    }
    const prices = pricesFor(PRICED_AS);
    if (!prices) throw new Error(`no prices for ${PRICED_AS}`);
    let usd = 0;
    for (const r of server.requests) {
      if (r.usage) usd += costOf(r.usage, prices);
      if (r.compaction) usd += costOf(r.compaction, prices);
    }
    return { usd, compactions: server.requests.filter((r) => r.compaction).length };
  } finally {
    await h.close();
    await server.close();
  }
}

async function main(): Promise<void> {
  const native = await session(true);
  const summary = await session(false);
  report({ bench: 'session_cost_100_turns_native_usd', value: r3(native.usd), unit: 'usd', target: 6, better: 'lower' });
  report({ bench: 'session_cost_100_turns_summary_usd', value: r3(summary.usd), unit: 'usd', target: 6, better: 'lower' });
  report({ bench: 'native_vs_summary_cost_ratio', value: r3(native.usd / summary.usd), unit: 'ratio', target: 1, better: 'lower' });
  report({ bench: 'native_compactions_100_turns', value: native.compactions, unit: 'count', target: 3, better: 'higher' });
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
