/**
 * Today's models as the provider describes them: 40-turn sessions through the session service against
 * a fake that plays the published contract (Models API lineup, adaptive-only thinking, a tokenizer
 * Headroom cannot reproduce, Anthropic's cache-invalidation table), each turn reading a file of real
 * text and answering. Prints:
 *   count_calls_per_request_1m        count-endpoint calls per model request on a 1M-window model at
 *                                     thinking "high" (first request, thresholds only; lower is better)
 *   count_calls_per_request_32k       the same on a 32k model (its estimate's band is a large share of
 *                                     the window: counted far more often; detail figure)
 *   requests_over_window_32k          requests whose input + max_tokens exceeded the 32k window (target 0)
 *   summary_cache_read_share_adaptive cached share of the input of the cache-preserving summary
 *                                     requests of a session on an adaptive model at thinking "high"
 *                                     whose window is set to 64k (so it compacts), under Anthropic's
 *                                     cache-invalidation table (target ≥ 0.8)
 */
// figures: count_calls_per_request_1m count_calls_per_request_32k requests_over_window_32k summary_cache_read_share_adaptive
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHED_SUMMARY_MARK } from '../src/context/compaction';
import { createFakeWorld, type FakeWorld } from '../test/fixtures/app/fake-environment';
import type { RecordedRequest } from '../test/fixtures/fake-provider';
import { TODAYS_LINEUP } from '../test/fixtures/fake-provider/model-specs';
import { r3, report } from './util';

const FILES = [
  'code-javascript',
  'ja-vite-docs',
  'json-gemoji',
  'log-apache',
  'ru-vue-docs',
  'shell-find-paths',
  'emoji-gemoji',
];
const TURNS = 40;
const corpus = (name: string) => readFileSync(join(__dirname, '..', 'test', 'fixtures', 'corpus', `${name}.txt`), 'utf8').slice(0, 3_500);
const isMessages = (r: RecordedRequest) => r.path === '/v1/messages';

async function session(world: FakeWorld, model: string, models: unknown = {}): Promise<{ requests: RecordedRequest[]; counts: number }> {
  const { service } = await world.open({ models });
  await service.sessions.create();
  await service.turns.setModel({ provider: 'anthropic', model, thinking: 'high' });
  const from = world.server.requests.length;
  const counted = world.server.counts.length;
  for (let i = 0; i < TURNS; i++) {
    const file = FILES[i % FILES.length];
    world.server.script.push(
      { toolCalls: [{ name: 'read_file', arguments: { path: `${file}.txt` } }] },
      { text: `Turn ${i}: ${file} read. ${'Findings noted in detail. '.repeat(120)}` },
    );
    await service.turns.prompt(`Turn ${i}: read ${file}.txt and summarize it. ${'Keep every name exact. '.repeat(20)}`);
  }
  return { requests: world.server.requests.slice(from).filter(isMessages), counts: world.server.counts.length - counted };
}

async function main(): Promise<void> {
  const world = await createFakeWorld(Object.fromEntries(FILES.map((f) => [`${f}.txt`, corpus(f)])), {
    server: { window: 200_000, apiKey: 'test-key', lineup: TODAYS_LINEUP, tokenizer: 'harsh' },
  });
  try {
    const large = await session(world, 'claude-sonnet-5-5');
    report({
      bench: 'count_calls_per_request_1m',
      value: r3(large.counts / large.requests.length),
      unit: 'calls/request',
      target: 0.25,
      better: 'lower',
      counts: large.counts,
      requests: large.requests.length,
      turns: TURNS,
    });
    const small = await session(world, 'claude-petite-5');
    report({
      bench: 'count_calls_per_request_32k',
      value: r3(small.counts / small.requests.length),
      unit: 'calls/request',
      counts: small.counts,
      requests: small.requests.length,
      turns: TURNS,
    });
    const over = small.requests.filter((r) => r.status !== 200 || r.inputTokens + Number(r.body.max_tokens) > 32_000);
    report({
      bench: 'requests_over_window_32k',
      value: over.length,
      unit: 'requests',
      target: 0,
      better: 'lower',
      requests: small.requests.length,
    });
    const mid = await session(world, 'claude-sonnet-5-5', { 'claude-sonnet-5-5': { contextWindow: 64_000 } });
    const summaries = mid.requests.filter(
      (r) => r.usage && JSON.stringify((r.body.messages as unknown[]).at(-1)).includes(CACHED_SUMMARY_MARK.slice(1, 30)),
    );
    const sum = (f: (u: NonNullable<RecordedRequest['usage']>) => number) => summaries.reduce((s, r) => s + f(r.usage!), 0);
    const input = sum((u) => u.input + u.cacheRead + u.cacheWrite);
    report({
      bench: 'summary_cache_read_share_adaptive',
      value: input ? r3(sum((u) => u.cacheRead) / input) : 0,
      unit: 'share',
      target: 0.8,
      better: 'higher',
      summaryRequests: summaries.length,
    });
  } finally {
    await world.close();
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
