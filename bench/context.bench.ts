/**
 * Context engine benchmarks. Prints one JSON line per figure:
 *   encoder_load_ms       cold load of the o200k ranks (reported; happens in the worker, off the host thread)
 *   count_10kb_nows_ms    bounded count of whitespace-free runs, worst kind (repeated char, lowercase run,
 *   count_100kb_nows_ms     base64, minified line), median per kind. Targets: 1 MB ≤ 300 ms;
 *   count_1mb_nows_ms       10 KB ≤ 50 and 100 KB ≤ 150 ms guard against regressions of the exact region
 *                           (random base64 is js-tiktoken's slowest ordinary input, ~1.5–2 ms per KB; above
 *                           the work budget the cost stays flat instead of growing)
 *   count_1mb_cjk_ms      1 MB of CJK (one unbroken run, and prose with punctuation), worst kind
 *   meter_update_ms       add a 4 KB message to a 200k-token session and recompute budget + view model
 *   preflight_ms          budget + preflight + admit for one request at 200k tokens
 *   engine_max_block_ms   worst event-loop lateness (monitorEventLoopDelay max) while the engine counts a
 *                         200k session and 1 MB pathological results through the real worker, updates
 *                         budgets, preflights, admits, finds boundaries, calibrates (the longest single
 *                         engine call is reported as detail)
 */
// figures: encoder_load_ms count_10kb_nows_ms count_100kb_nows_ms count_1mb_nows_ms count_1mb_cjk_ms meter_update_ms preflight_ms engine_max_block_ms
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { median, measureMaxBlock, r3, report } from './util';
import { loadEncoding } from '../src/context/encoder';
import { countInFamily } from '../src/context/worker-count';
import { ContextBudget } from '../src/context/budget';
import { Calibration } from '../src/context/calibration';
import { admit, preflight } from '../src/context/guard';
import { countMessageWith, toolDefinitionParts, type TextCount } from '../src/context/message-tokens';
import { resolveModelLimits, type TokenizerFamily } from '../src/context/models';
import { TokenLedger } from '../src/context/token-ledger';
import { TokenWorkerClient, type TextCounter } from '../src/context/token-worker-client';
import { findSafeBoundary } from '../src/context/turns';
import type { Message, ToolDefinition } from '../src/providers/types';
import {
  assistant,
  base64Run,
  cjkRun,
  lowercaseRun,
  minifiedLine,
  randomHistory,
  seeded,
  toolResult,
  user,
} from '../test/fixtures/context/factories';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const rnd = seeded(2026);
const KB = 1024;

function timeMs(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

function prose(bytes: number): string {
  const words = [
    'context',
    'window',
    'token',
    'budget',
    'the',
    'agent',
    'compacts',
    'history',
    'before',
    'a',
    'request',
    'fits',
    'tool',
    'result',
    'stored',
    'offloaded',
    'meter',
    'shows',
    'free',
    'space',
  ];
  let s = '';
  while (s.length < bytes) s += words[Math.floor(rnd() * words.length)] + (rnd() < 0.08 ? '.\n' : ' ');
  return s.slice(0, bytes);
}

/** A session of ~`tokens` tokens: turns of a user prompt, an assistant call, a 4 KB tool result, a reply. */
function session(tokens: number): Message[] {
  const out: Message[] = [];
  let est = 0;
  let id = 0;
  while (est < tokens) {
    const callId = `call_${id++}`;
    out.push(
      user(prose(300)),
      assistant(prose(200), [{ id: callId, args: { path: `src/file${id}.ts` } }]),
      toolResult(callId, prose(4 * KB)),
      assistant(prose(600)),
    );
    est += (300 + 200 + 4 * KB + 600) / 4 + 40;
  }
  return out;
}

const tools: ToolDefinition[] = Array.from({ length: 12 }, (_, i) => ({
  name: `tool_${i}`,
  description: prose(400),
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string', description: prose(80) }, limit: { type: 'number' } },
    required: ['path'],
  },
}));

/** Never answers: the meter path must not depend on the tokenizer. */
const silentCounter: TextCounter = { isReady: true, countTexts: () => new Promise<TextCount[]>(() => {}) };

function componentsOf(ledger: TokenLedger, messages: readonly Message[], family: TokenizerFamily) {
  let msgs = 0;
  let results = 0;
  for (const m of messages) {
    const c = ledger.count(m, family).tokens;
    if (m.role === 'toolResult') results += c;
    else msgs += c;
  }
  const toolParts = toolDefinitionParts(tools);
  return {
    system: ledger.countText(SYSTEM, family).tokens,
    rules: ledger.countText(RULES, family).tokens,
    tools: ledger.countTexts(toolParts.texts, family, toolParts.fixed).tokens,
    messages: msgs,
    toolResults: results,
  };
}
const SYSTEM = prose(6 * KB);
const RULES = prose(3 * KB);

async function main(): Promise<void> {
  // 1. Cold encoder load, before anything else touches the ranks.
  const loaded = await loadEncoding('o200k_base');
  report({
    bench: 'encoder_load_ms',
    value: r3(loaded.loadMs),
    unit: 'ms',
    better: 'lower',
    note: 'in the token worker, off the host thread',
  });
  const { counter } = loaded;

  // 2. Whitespace-free runs and CJK.
  const nowsKinds: Record<string, (n: number) => string> = {
    repeated_char: (n) => 'a'.repeat(n),
    lowercase_run: (n) => lowercaseRun(rnd, n),
    base64: (n) => base64Run(rnd, n),
    minified_line: (n) => minifiedLine(n),
  };
  const cjkKinds: Record<string, (n: number) => string> = {
    cjk_run: (n) => cjkRun(rnd, Math.floor(n / 3)),
    cjk_prose: (n) => {
      let s = '';
      while (s.length * 3 < n) s += cjkRun(rnd, 12 + Math.floor(rnd() * 20)) + (rnd() < 0.7 ? '，' : '。');
      return s;
    },
  };
  const worst = (kinds: Record<string, (n: number) => string>, bytes: number, reps: number) => {
    const perKind: Record<string, number> = {};
    for (const [name, make] of Object.entries(kinds)) {
      counter.count(make(2048)); // warm the code paths
      const times: number[] = [];
      for (let i = 0; i < reps; i++) {
        const text = make(bytes); // a fresh text each time, so the chunk memo cannot help across reps
        times.push(timeMs(() => counter.count(text)));
      }
      perKind[name] = r3(median(times));
      gc();
    }
    return { value: Math.max(...Object.values(perKind)), perKind };
  };
  const n10 = worst(nowsKinds, 10 * KB, 15);
  report({ bench: 'count_10kb_nows_ms', value: n10.value, unit: 'ms', target: 50, better: 'lower', perKind: n10.perKind });
  const n100 = worst(nowsKinds, 100 * KB, 7);
  report({ bench: 'count_100kb_nows_ms', value: n100.value, unit: 'ms', target: 150, better: 'lower', perKind: n100.perKind });
  const n1m = worst(nowsKinds, 1024 * KB, 5);
  report({ bench: 'count_1mb_nows_ms', value: n1m.value, unit: 'ms', target: 300, better: 'lower', perKind: n1m.perKind });
  const c1m = worst(cjkKinds, 1024 * KB, 5);
  report({ bench: 'count_1mb_cjk_ms', value: c1m.value, unit: 'ms', target: 300, better: 'lower', perKind: c1m.perKind });

  // 3. Meter update: a 200k-token session whose counts are memoized (as after a resume from the store).
  const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic');
  const family = limits.family;
  const history = session(200_000);
  const exactText = (t: string) => countInFamily(t, family, counter);
  const ledger = new TokenLedger(silentCounter);
  ledger.seed(history.map((m) => countMessageWith(m, family, exactText)));
  const cal = new Calibration();
  const warm = new ContextBudget(limits, componentsOf(ledger, history, family));
  const sessionTokens = warm.used;
  const meterTimes: number[] = [];
  const messages = [...history];
  for (let i = 0; i < 60; i++) {
    const fresh = user(prose(4 * KB)); // built outside the timed section, like a message arriving
    meterTimes.push(
      timeMs(() => {
        messages.push(fresh);
        const b = new ContextBudget(limits, componentsOf(ledger, messages, family), { errorBand: cal.errorBand(limits.model) });
        JSON.stringify(b.toViewModel());
      }),
    );
  }
  report({
    bench: 'meter_update_ms',
    value: r3(median(meterTimes)),
    unit: 'ms',
    target: 2,
    better: 'lower',
    sessionTokens,
    messages: history.length,
  });

  // 4. Preflight + budget + admission for one request at 200k.
  const preTimes: number[] = [];
  for (let i = 0; i < 60; i++) {
    preTimes.push(
      timeMs(() => {
        const c = componentsOf(ledger, messages, family);
        const b = new ContextBudget(limits, c);
        const r = preflight(
          { committed: c.messages + c.toolResults, pending: c.system + c.rules, newTokens: 0, schema: c.tools, components: c },
          limits,
          { onTrace: () => {} },
        );
        admit({ bytes: 3000, tokens: 750 }, r.projection);
        void b.toViewModel();
      }),
    );
  }
  report({ bench: 'preflight_ms', value: r3(median(preTimes)), unit: 'ms', target: 5, better: 'lower', sessionTokens });
  ledger.dispose();
  gc();

  // 5. Longest block of the host thread while the engine works with the real worker.
  const dist = join(__dirname, '..', 'dist', 'token-worker.js');
  const workerOptions = existsSync(dist)
    ? { workerPath: dist }
    : { workerPath: join(__dirname, '..', 'src', 'context', 'token-worker.ts'), execArgv: ['--require', 'tsx/cjs'] };
  const heavy = [
    toolResult('h1', 'z'.repeat(1024 * KB)),
    toolResult('h2', cjkRun(rnd, 350_000)),
    toolResult('h3', base64Run(rnd, 1024 * KB)),
    toolResult('h4', minifiedLine(1024 * KB)),
  ];
  const big = session(200_000);
  const messy = randomHistory(seeded(4), 400, true);
  gc();
  // The figure is the worst event-loop lateness over the whole run (what the user feels); every engine
  // call is also timed on its own and the longest is reported as detail, to say where a block came from.
  let longestCall = 0;
  let longestName = '';
  const timed = <T>(name: string, fn: () => T): T => {
    const t = performance.now();
    const out = fn();
    const d = performance.now() - t;
    if (d > longestCall) [longestCall, longestName] = [d, name];
    return out;
  };
  const { result: engineInfo, maxBlockMs } = await measureMaxBlock(async () => {
    const client = timed('worker start', () => new TokenWorkerClient(workerOptions));
    timed('worker start', () => client.start());
    const live = new TokenLedger(client);
    const shown: Message[] = [];
    for (const m of big) {
      shown.push(m);
      const c = timed('budget update', () => componentsOf(live, shown, family));
      const r = timed('preflight', () =>
        preflight({ committed: c.messages + c.toolResults, pending: c.system + c.rules, newTokens: 0, schema: c.tools }, limits),
      );
      if (m.role === 'toolResult') timed('admit', () => admit({ bytes: 4 * KB, tokens: c.toolResults }, r.projection));
      if (shown.length % 20 === 0) await new Promise((res) => setImmediate(res)); // the loop yields between events
    }
    for (const h of heavy) {
      timed('count 1 MB result', () => live.count(h, family));
      await new Promise((res) => setImmediate(res));
    }
    timed('findSafeBoundary', () => findSafeBoundary(messy, Math.floor(messy.length / 2)));
    for (let i = 0; i < 20; i++)
      timed('calibration', () => cal.observe(limits.model, 100_000, { input: 5_000, output: 0, cacheRead: 100_000, cacheWrite: 10_000 }));
    const counts = await Promise.all([...big, ...heavy].map((m) => timed('countExact', () => live.countExact(m, family))));
    const exact = counts.every((c) => c.exact);
    live.dispose();
    client.dispose();
    return { exact, worker: workerOptions.workerPath.endsWith('.js') ? 'dist' : 'src' };
  }, 2);
  report({
    bench: 'engine_max_block_ms',
    value: r3(maxBlockMs),
    unit: 'ms',
    target: 50,
    better: 'lower',
    longestCallMs: r3(longestCall),
    longestCall: longestName,
    ...engineInfo,
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`context bench failed: ${String(err)}\n`);
    process.exit(1);
  },
);
