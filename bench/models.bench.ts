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
 *                                     cache-invalidation table (target ≥ 0.8). Its `background`
 *                                     threshold equals `compact` (a valid setting): every summary is
 *                                     made by a compaction pass
 *   summary_cache_read_share_default  the cached share of all summary requests of the same session at the
 *                                     default thresholds, where the summary prepared in the background is
 *                                     what compactions apply; it is built over the agent's prefix too
 *                                     (target ≥ 0.8)
 * The fake answers by what each request asks (a turn's prompt, a file read, a summary), so a summary
 * request the compaction makes between two agent requests cannot shift the turns' scripted replies.
 */
// figures: count_calls_per_request_1m count_calls_per_request_32k requests_over_window_32k summary_cache_read_share_adaptive summary_cache_read_share_default
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHED_SUMMARY_MARK, SUMMARY_SECTIONS } from '../src/context/compaction';
import { createFakeWorld, type FakeSettings, type FakeWorld } from '../test/fixtures/app/fake-environment';
import type { FakeReply, RecordedRequest } from '../test/fixtures/fake-provider';
import { TODAYS_LINEUP } from '../test/fixtures/fake-provider/model-specs';
import { r3, report } from './util';

const FILES = ['code-javascript', 'ja-vite-docs', 'json-gemoji', 'log-apache', 'ru-vue-docs', 'shell-find-paths', 'emoji-gemoji'];
const TURNS = 40;
const corpus = (name: string) => readFileSync(join(__dirname, '..', 'test', 'fixtures', 'corpus', `${name}.txt`), 'utf8').slice(0, 3_500);
const isMessages = (r: RecordedRequest) => r.path === '/v1/messages';

interface WirePart {
  type?: string;
  text?: string;
}
const partsOf = (m: unknown): WirePart[] => {
  const c = (m as { content?: unknown } | undefined)?.content;
  return Array.isArray(c) ? (c as WirePart[]) : [{ type: 'text', text: typeof c === 'string' ? c : '' }];
};
const textOf = (m: unknown) =>
  partsOf(m)
    .map((p) => (p.type === 'text' ? (p.text ?? '') : ''))
    .join(' ');
const isCachedSummary = (r: RecordedRequest) => textOf((r.body.messages as unknown[] | undefined)?.at(-1)).includes(CACHED_SUMMARY_MARK);
const ASKED = /^Turn (\d+): read (\S+\.txt)/;

/** What a request asks: a turn's first step (read its file), its answer after the read, or a summary. */
function asked(
  r: RecordedRequest,
): { kind: 'read'; turn: string; path: string } | { kind: 'answer'; turn: string; path: string } | { kind: 'summary' } {
  const messages = (r.body.messages as unknown[] | undefined) ?? [];
  const last = messages.at(-1);
  // The SDK request merges the summary instruction into the last user message (after a prompt or a tool result).
  if (isCachedSummary(r)) return { kind: 'summary' };
  const prompt = [...messages]
    .reverse()
    .map((m) => ASKED.exec(textOf(m)))
    .find((m) => m);
  if (prompt && ASKED.test(textOf(last))) return { kind: 'read', turn: prompt[1], path: prompt[2] };
  if (prompt && partsOf(last).some((p) => p.type === 'tool_result')) return { kind: 'answer', turn: prompt[1], path: prompt[2] };
  return { kind: 'summary' };
}

const SUMMARY = SUMMARY_SECTIONS.map((s) => `${s.split(' — ')[0]}\nThe files read so far and their findings, names kept exact.`).join('\n');

function reply(r: RecordedRequest): FakeReply {
  const a = asked(r);
  if (a.kind === 'read') return { toolCalls: [{ name: 'read_file', arguments: { path: a.path } }] };
  if (a.kind === 'answer') return { text: `Turn ${a.turn}: ${a.path} read. ${'Findings noted in detail. '.repeat(120)}` };
  return { text: SUMMARY };
}

async function session(
  world: FakeWorld,
  model: string,
  settings: Partial<FakeSettings> = {},
): Promise<{ requests: RecordedRequest[]; counts: number }> {
  const { service } = await world.open({ models: {}, ...settings });
  await service.sessions.create();
  await service.turns.setModel({ provider: 'anthropic', model, thinking: 'high' });
  const from = world.server.requests.length;
  const counted = world.server.counts.length;
  for (let i = 0; i < TURNS; i++) {
    const file = FILES[i % FILES.length];
    while (world.server.script.length < 8) world.server.script.push(reply);
    await service.turns.prompt(`Turn ${i}: read ${file}.txt and summarize it. ${'Keep every name exact. '.repeat(20)}`);
  }
  world.server.script.length = 0;
  return { requests: world.server.requests.slice(from).filter(isMessages), counts: world.server.counts.length - counted };
}

/** Cached share of the input of `requests` (0 when there is none: measured nothing, and the runner's target then fails). */
function cachedShare(requests: RecordedRequest[]): number {
  const sum = (f: (u: NonNullable<RecordedRequest['usage']>) => number) => requests.reduce((s, r) => s + (r.usage ? f(r.usage) : 0), 0);
  const input = sum((u) => u.input + u.cacheRead + u.cacheWrite);
  return input ? r3(sum((u) => u.cacheRead) / input) : 0;
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
    const window64k = { models: { 'claude-sonnet-5-5': { contextWindow: 64_000 } } };
    // `background` = `compact`: no summary is prepared ahead, so each compaction makes its summary request then.
    const mid = await session(world, 'claude-sonnet-5-5', { ...window64k, thresholds: { background: 0.95, compact: 0.95 } });
    const summaries = mid.requests.filter((r) => r.usage && isCachedSummary(r));
    report({
      bench: 'summary_cache_read_share_adaptive',
      value: cachedShare(summaries),
      unit: 'share',
      target: 0.8,
      better: 'higher',
      summaryRequests: summaries.length,
      allSummaryRequests: mid.requests.filter((r) => asked(r).kind === 'summary').length,
    });
    const byDefault = await session(world, 'claude-sonnet-5-5', window64k);
    const all = byDefault.requests.filter((r) => asked(r).kind === 'summary');
    report({
      bench: 'summary_cache_read_share_default',
      value: cachedShare(all),
      unit: 'share',
      target: 0.8,
      better: 'higher',
      summaryRequests: all.length,
      cachePreserving: all.filter(isCachedSummary).length,
    });
  } finally {
    await world.close();
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
