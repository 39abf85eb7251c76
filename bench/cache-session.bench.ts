// figures: cache_read_share_band_with_compaction cache_unexplained_misses
/**
 * A 40-turn session in the 80–98 % band with compaction ON: the real loop, gate and compaction chain
 * (its summaries go to the same fake model over the agent's own prefix), the production system
 * prompt, the real Anthropic adapter, and the fake provider's cache simulator, which follows the
 * published invalidation table (tools → system → messages; tool_choice and thinking invalidate the
 * message level; entries expire; deferred tools are outside the prefix and a `tool_reference` costs its
 * definition in place). Twelve external tools, about half of them deferred; every fifth turn the model
 * finds one with `tool_search` and calls it. Whenever a compaction takes the context below 80 %, it is
 * filled back (those fills are not measured); only turns that start in the band count, with every
 * request they make: the agent's and the compaction's summary requests. The session runs twice, with
 * found tools loaded by reference (what Claude 4+ models get) and listed (every other model). Prints:
 *   cache_read_share_band_with_compaction  cache reads ÷ all input tokens over those requests, by
 *                                          reference (≥ 0.85); `listedShare`: the same session listing them
 *   cache_unexplained_misses               misses Headroom's cache truth (`context/cache-truth.ts`)
 *                                          found no reason for, over the requests of both runs (target 0)
 */
import { createCompactionChain } from '../src/agent/compaction';
import { cacheMiss, requestShape, type CacheMiss, type RequestShape } from '../src/context/cache-truth';
import { buildSystemSections } from '../src/context/system-prompt';
import { TokenLedger } from '../src/context/token-ledger';
import type { Provider } from '../src/providers/provider';
import { createProvider } from '../src/providers/create-provider';
import type { ProviderRequest, StreamEvent, Usage } from '../src/providers/types';
import { createMemoryResultPort } from '../src/tools/memory-results';
import { createHarness, externalTools, MODEL } from '../test/fixtures/agent/harness';
import { fillTo, prose } from '../test/fixtures/agent/fill';
import { o200kCounter } from '../test/fixtures/context/o200k-counter';
import { startFakeProvider } from '../test/fixtures/fake-provider';
import { r3, report } from './util';

const TURNS = 40;
const WINDOW = 64_000;
const RULES = Array.from({ length: 120 }, (_, i) => `- Rule ${i}: prefer pure functions in src/context and test every fix.`).join('\n');

interface Sent {
  shape: RequestShape;
  usage: Usage;
  summary: boolean;
  /** The turn it belongs to (-1: outside the measured turns). */
  turn: number;
}

/** One 40-turn session; `byReference`: found tools are loaded by reference, else listed. */
async function session(byReference: boolean): Promise<{ sent: Sent[]; compactions: number; activations: number }> {
  const server = await startFakeProvider({ window: WINDOW });
  const sent: Sent[] = [];
  let turn = -1;
  const inner = createProvider({ provider: 'anthropic', apiKey: 'bench-key', baseUrl: server.baseUrl, retry: { maxRetries: 0 } });
  // Every request the session makes (answers and summaries) passes here, so each is judged alike.
  const provider: Provider = {
    id: inner.id,
    async *stream(req: ProviderRequest, signal?: AbortSignal): AsyncIterable<StreamEvent> {
      for await (const e of inner.stream(req, signal)) {
        if (e.type === 'done' && e.message.stopReason !== 'error')
          sent.push({
            shape: requestShape(req, e.message.timestamp, inner.id),
            usage: e.message.usage,
            summary: req.tools.length === 0 || isSummary(req),
            turn,
          });
        yield e;
      }
    },
  };
  const chain = createCompactionChain({ summarizer: provider, summarizerModel: MODEL, results: createMemoryResultPort() });
  const files: Record<string, string> = {};
  for (let i = 0; i < 8; i++) files[`src/f${i}.ts`] = prose(2400, i);
  const h = await createHarness({
    window: WINDOW,
    server,
    files,
    external: externalTools(12),
    gate: { compact: chain.hook, prepare: (input) => chain.prepare(input), ledger: new TokenLedger(await o200kCounter()) },
  });
  let compactions = 0;
  let activations = 0;
  try {
    h.registry.policy.setByReference(byReference);
    h.config.provider = provider;
    h.system = buildSystemSections({ rules: [{ path: 'AGENTS.md', text: RULES }], workspaceName: 'bench' });
    h.config.request = { cacheTail: true };
    h.server.script.push({ text: 'ready' });
    await h.turn('hello');
    for (let step = 0; step < TURNS; step++) {
      if (h.gate.measure(h.view).ratio < 0.8) {
        turn = -1;
        await fillTo(h, 0.8);
      }
      turn = step;
      const deferred = h.registry.selection().deferred;
      if (step % 5 === 4 && deferred.length) {
        const found = deferred[step % deferred.length].name;
        activations++;
        h.server.script.push(
          { toolCalls: [{ id: `t${step}`, name: 'tool_search', arguments: { query: found, limit: 1 } }] },
          { toolCalls: [{ id: `x${step}`, name: found, arguments: { query: `step ${step}` } }] },
        );
      }
      h.server.script.push(
        { toolCalls: [{ id: `s${step}`, name: 'read_file', arguments: { path: `src/f${step % 8}.ts` } }] },
        { text: `Step ${step} done.` },
      );
      const r = await h.turn(`Step ${step}: read the next file and note what changed.`, undefined, (e) => {
        if (e.type === 'compaction') compactions++;
      });
      if (r.reason !== 'done') throw new Error(`turn ${step} ended with ${r.reason}`);
    }
  } finally {
    await h.close();
    await server.close();
  }
  return { sent, compactions, activations };
}

/** The band's requests, their cache-read share and the misses Headroom's cache truth names (each judged against the one before). */
function judge(sent: Sent[]) {
  const misses: Array<CacheMiss & { turn: number }> = [];
  sent.forEach((s, i) => {
    const miss = cacheMiss(i ? sent[i - 1] : undefined, s, undefined);
    if (miss && s.turn >= 0) misses.push({ ...miss, turn: s.turn });
  });
  const band = sent.filter((s) => s.turn >= 0);
  const read = band.reduce((a, s) => a + s.usage.cacheRead, 0);
  const input = band.reduce((a, s) => a + s.usage.input + s.usage.cacheRead + s.usage.cacheWrite, 0);
  return { band, read, input, share: input ? read / input : 0, misses };
}

async function main(): Promise<void> {
  const referenced = await session(true);
  const listed = await session(false);
  const ref = judge(referenced.sent);
  const lst = judge(listed.sent);
  const misses = [...ref.misses, ...lst.misses];
  const reasons: Record<string, number> = {};
  for (const m of misses) reasons[m.reason] = (reasons[m.reason] ?? 0) + 1;
  report({
    bench: 'cache_read_share_band_with_compaction',
    value: r3(ref.share),
    unit: 'ratio',
    target: 0.85,
    better: 'higher',
    turns: TURNS,
    requests: ref.band.length,
    summaryRequests: ref.band.filter((s) => s.summary).length,
    compactions: referenced.compactions,
    toolActivations: referenced.activations,
    inputTokens: ref.input,
    cacheReadTokens: ref.read,
    listedShare: r3(lst.share),
    listedInputTokens: lst.input,
  });
  report({
    bench: 'cache_unexplained_misses',
    value: misses.filter((m) => m.reason === 'unexplained').length,
    unit: 'misses',
    target: 0,
    better: 'lower',
    misses: misses.length,
    reasons,
  });
}

/** A summary request over the agent's prefix ends with the summary instruction as a user message. */
function isSummary(req: ProviderRequest): boolean {
  const last = req.messages.at(-1);
  return last?.role === 'user' && last.content.some((p) => p.type === 'text' && /about to be compacted|summar/i.test(p.text));
}

void main();
