// figures: store_export_block_1k_ms store_export_block_10k_ms store_export_block_50k_ms open_compacted_50k_ms open_compacted_50k_rss_mb first_meter_estimated_50k
/**
 * A long session that compacted as a real one does: every ~130 messages a compaction whose snapshot is
 * the summary so far and the last ~18 turns kept verbatim (~60 KB, each message with the count it was
 * saved with), its record and "what left" report — 6, 77 and 386 compactions at 1k, 10k and 50k
 * messages, all recorded through the store's public API. Measures, per size:
 *   store_export_block_<n>_ms   the longest synchronous export of the session database on the host
 *                               (sql.js `export()` of the live database as it is after the compactions
 *                               and the turns that follow; worst of 15; ≤ 20 ms), with the event loop's
 *                               worst block while those turns were persisted beside it
 *   open_compacted_50k_ms / _rss_mb   opening it in a fresh process as the panel does (median of 5,
 *                               worst beside; ≤ 300 ms, ≤ 60 MB)
 *   first_meter_estimated_50k   messages of the reopened context view without a stored count (must be 0:
 *                               the first meter is exact, nothing is recounted)
 * Times are wall time less what the main thread spent waiting for a CPU meanwhile (`timeOwn`,
 * `watchBlocks` in util.ts: this machine's 2 cores are shared, and other processes' turns are not
 * Headroom's cost); the raw wall times, the main thread's and the whole process's on-CPU time and the
 * load average are printed beside them, with the live database's size and the snapshot files' total.
 * Built in a temp folder under os.tmpdir() and removed afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorStack } from '../src/common/errors';
import { TokenLedger } from '../src/context/token-ledger';
import { openStore } from '../src/store';
import { loadSqlJs } from '../src/store/sqljs';
import { buildCompactedSession, MESSAGES_PER_COMPACTION } from './store-compacted-fixture';
import { turn, WASM } from './store-session-fixture';
import { load1, median, r3, report, timeOwn, watchBlocks } from './util';

const MB = 1024 * 1024;
/** Fresh-process opens of the 50k session (each its own memory and a cold engine). */
const OPEN_RUNS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long exporting this database takes (the synchronous part of every save), `n` times. */
async function exportTimes(file: string, n: number): Promise<{ times: number[]; wallMs: number[] }> {
  const SQL = await loadSqlJs(WASM);
  const db = new SQL.Database(readFileSync(file));
  const times: number[] = [];
  const wallMs: number[] = [];
  try {
    for (let k = 0; k < n; k++) {
      global.gc?.();
      const t = timeOwn(() => db.export());
      times.push(t.ownMs);
      wallMs.push(t.wallMs);
    }
  } finally {
    db.close();
  }
  return { times, wallMs };
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
    const blocks: Array<{ ownMs: number; wallMs: number }> = [];
    for (let round = 0; round < 3; round++) {
      global.gc?.();
      const watch = watchBlocks();
      for (let i = 0; i < 20; i++) {
        await store.sessions.appendTurn(id, turn(200_000 + round * 100 + i), { tokens: [80, 200, 900], tokenFamily: 'claude' });
        await sleep(50); // turns are seconds apart; the debounced exports run in between and count
      }
      await store.flush();
      blocks.push(watch.stop());
    }
    await store.close();
    const { times: exports, wallMs } = await exportTimes(join(root, 'sessions', `${id}.sqlite`), 15);
    report({
      bench: `store_export_block_${label}_ms`,
      value: r3(Math.max(...exports)),
      unit: 'ms',
      target: 20,
      better: 'lower',
      medianExportMs: r3(median(exports)),
      worstExportWallMs: r3(Math.max(...wallMs)),
      eventLoopWorstMs: blocks.map((b) => r3(b.ownMs)),
      eventLoopWorstWallMs: blocks.map((b) => r3(b.wallMs)),
      load1: load1(),
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
  type Run = { ms: number; ownMs: number; cpuMs: number; mainCpuMs: number; rssMb: number };
  const runs: Run[] = [];
  for (let k = 0; k < OPEN_RUNS; k++) {
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(__dirname, 'store-open-child.ts'), root, id], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`open child failed: ${r.stderr}`);
    runs.push(JSON.parse(r.stdout.trim().split('\n').pop()!) as Run);
  }
  report({
    bench: 'open_compacted_50k_ms',
    value: r3(median(runs.map((r) => r.ownMs))),
    unit: 'ms',
    target: 300,
    better: 'lower',
    worstMs: r3(Math.max(...runs.map((r) => r.ownMs))),
    compactions,
    runs: runs.map((r) => r3(r.ownMs)),
    wallRuns: runs.map((r) => r3(r.ms)),
    mainOnCpuMs: runs.map((r) => r3(r.mainCpuMs)),
    processOnCpuMs: runs.map((r) => r3(r.cpuMs)),
    load1: load1(),
  });
  report({
    bench: 'open_compacted_50k_rss_mb',
    value: r3(median(runs.map((r) => r.rssMb))),
    unit: 'MB',
    target: 60,
    better: 'lower',
    worstMb: r3(Math.max(...runs.map((r) => r.rssMb))),
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
