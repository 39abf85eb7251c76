// figures: store_export_block_1k_ms store_export_block_10k_ms store_export_block_50k_ms open_compacted_50k_ms open_compacted_50k_rss_mb first_meter_estimated_50k
/**
 * A long session that compacted as a real one does: every ~130 messages a compaction whose snapshot is
 * the summary so far and the last ~18 turns kept verbatim (~60 KB, each message with the count it was
 * saved with), its record and "what left" report — 6, 77 and 386 compactions at 1k, 10k and 50k
 * messages, all recorded through the store's public API. Measures, per size:
 *   store_export_block_<n>_ms   the longest synchronous export of the session database on the host
 *                               (sql.js `export()` of the live database as it is after the compactions
 *                               and the turns that follow; worst of 15; ≤ 20 ms), with the event loop's
 *                               worst lateness while those turns were persisted beside it (a shared
 *                               machine's scheduling shows up there too)
 *   open_compacted_50k_ms / _rss_mb   opening it in a fresh process as the panel does (≤ 300 ms, ≤ 60 MB)
 *   first_meter_estimated_50k   messages of the reopened context view without a stored count (must be 0:
 *                               the first meter is exact, nothing is recounted)
 * with the live database's size and the snapshot files' total beside each figure, and the process's
 * on-CPU time of the same export and open beside the wall time (on a shared machine the difference
 * is other processes' turn). Built in a temp folder
 * under os.tmpdir() and removed afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { errorStack } from '../src/common/errors';
import { TokenLedger } from '../src/context/token-ledger';
import { openStore } from '../src/store';
import { loadSqlJs } from '../src/store/sqljs';
import { buildCompactedSession, MESSAGES_PER_COMPACTION } from './store-compacted-fixture';
import { turn, WASM } from './store-session-fixture';
import { median, r3, report } from './util';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long exporting this database takes (the synchronous part of every save), `n` times. */
async function exportTimes(file: string, n: number): Promise<{ times: number[]; cpuMs: number[] }> {
  const SQL = await loadSqlJs(WASM);
  const db = new SQL.Database(readFileSync(file));
  const times: number[] = [];
  const cpuMs: number[] = [];
  try {
    for (let k = 0; k < n; k++) {
      global.gc?.();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      db.export();
      times.push(performance.now() - t0);
      const cpu = process.cpuUsage(cpu0);
      cpuMs.push((cpu.user + cpu.system) / 1000);
    }
  } finally {
    db.close();
  }
  return { times, cpuMs };
}

function sizes(root: string, id: string): { dbMb: number; snapshotMb: number } {
  const dir = join(root, 'sessions');
  const snapshotMb = readdirSync(dir)
    .filter((f) => f.startsWith(`${id}.snap-`))
    .reduce((s, f) => s + statSync(join(dir, f)).size, 0);
  return { dbMb: r3(statSync(join(dir, `${id}.sqlite`)).size / MB), snapshotMb: r3(snapshotMb / MB) };
}

async function exportBlock(messages: number, label: string): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), `headroom-bench-cmp-${label}-`));
  try {
    const compactions = Math.round(messages / MESSAGES_PER_COMPACTION);
    const id = await buildCompactedSession(root, messages, compactions);
    if (label === '50k') {
      openInChild(root, id, compactions);
      await firstMeter(root, id);
    }
    const store = await openStore({ root, wasmPath: WASM });
    const view = await store.sessions.contextView(id);
    await store.flush();
    const blocks: number[] = [];
    for (let round = 0; round < 3; round++) {
      global.gc?.();
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      for (let i = 0; i < 20; i++) {
        await store.sessions.appendTurn(id, turn(200_000 + round * 100 + i), { tokens: [80, 200, 900], tokenFamily: 'claude' });
        await sleep(50); // turns are seconds apart; the debounced exports run in between and count
      }
      await store.flush();
      delay.disable();
      blocks.push(Math.max(0, delay.max / 1e6 - 1));
    }
    await store.close();
    const { times: exports, cpuMs } = await exportTimes(join(root, 'sessions', `${id}.sqlite`), 15);
    report({
      bench: `store_export_block_${label}_ms`,
      value: r3(Math.max(...exports)),
      unit: 'ms',
      target: 20,
      better: 'lower',
      medianExportMs: r3(median(exports)),
      worstExportOnCpuMs: r3(Math.max(...cpuMs)),
      eventLoopWorstMs: blocks.map(r3),
      messages,
      compactions,
      contextMessages: view.messages.length,
      ...sizes(root, id),
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Opens the compacted session in a fresh process (its own memory), and checks the first meter is exact. */
function openInChild(root: string, id: string, compactions: number): void {
  const runs: Array<{ ms: number; cpuMs: number; rssMb: number }> = [];
  for (let k = 0; k < 3; k++) {
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(__dirname, 'store-open-child.ts'), root, id], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`open child failed: ${r.stderr}`);
    runs.push(JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number; cpuMs: number; rssMb: number });
  }
  report({
    bench: 'open_compacted_50k_ms',
    value: r3(median(runs.map((r) => r.ms))),
    unit: 'ms',
    target: 300,
    better: 'lower',
    compactions,
    runs: runs.map((r) => r3(r.ms)),
    onCpuMs: runs.map((r) => r3(r.cpuMs)),
  });
  report({
    bench: 'open_compacted_50k_rss_mb',
    value: r3(median(runs.map((r) => r.rssMb))),
    unit: 'MB',
    target: 60,
    better: 'lower',
    compactions,
  });
}

async function firstMeter(root: string, id: string): Promise<void> {
  const store = await openStore({ root, wasmPath: WASM });
  const view = await store.sessions.contextView(id);
  const ledger = new TokenLedger(); // no tokenizer: a count missing from the store stays an estimate
  ledger.seed(view.counts);
  const total = ledger.total(view.messages, 'claude');
  await store.close();
  report({
    bench: 'first_meter_estimated_50k',
    value: total.pending,
    unit: 'messages',
    target: 0,
    better: 'lower',
    contextMessages: view.messages.length,
    tokens: total.tokens,
  });
}

async function main(): Promise<void> {
  await exportBlock(1_000, '1k');
  await exportBlock(10_000, '10k');
  await exportBlock(50_000, '50k');
}

main().catch((err: unknown) => {
  process.stderr.write(errorStack(err) + '\n');
  process.exit(1);
});
