/**
 * Paging a huge stored result: one `read_result` page of a 100 MB result of realistic log
 * text, through the store's paging seam. The bytes are counted where the store reads them (its fs
 * seam), so the figure says what a page costs on disk: the page plus a few boundary bytes, never the
 * whole result. Built in a temp folder under os.tmpdir() and removed afterwards.
 */
// figures: read_result_page_100mb_ms read_result_page_100mb_bytes_read
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store';
import { READ_RESULT_DEFAULT_LIMIT } from '../src/tools/builtin/read-result';
import { CountingFs } from '../test/fixtures/store/counting-fs';
import { WASM } from './store-session-fixture';
import { median, r3, report } from './util';

const MB = 1024 * 1024;
const SIZE = 100 * MB;

/** Build-tool and test-runner output as it looks in a terminal: timestamps, levels, paths, stack lines. */
function logText(bytes: number): string {
  const levels = ['INFO', 'DEBUG', 'WARN', 'ERROR'];
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const t = new Date(1_800_000_000_000 + i * 37).toISOString();
    const line =
      i % 97 === 0
        ? `    at Object.<anonymous> (/home/dev/app/src/module-${i % 41}/handler.ts:${i % 500}:${i % 80}) — ünïcödé 日本語`
        : `${t} ${levels[i % 4]} [worker-${i % 8}] request ${i} GET /api/items/${i * 7} took ${i % 900} ms (cache ${i % 3 ? 'hit' : 'miss'})`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'headroom-bench-page-'));
  const fs = new CountingFs();
  try {
    const store = await openStore({ root, wasmPath: WASM, fs, maxResultBytes: 2 * SIZE, resultCapBytes: 4 * SIZE });
    const s = await store.sessions.create('bench');
    const meta = await store.results.put(s.id, 'run_command', logText(SIZE));
    const samples: number[] = [];
    const bytes: number[] = [];
    for (let i = 0; i < 40; i++) {
      const offset = Math.floor(((i * 7919) % 1000) * (meta.byteSize / 1000));
      fs.bytesRead = 0;
      const t0 = performance.now();
      const page = await store.results.page(meta.refId, { offset, limit: READ_RESULT_DEFAULT_LIMIT });
      samples.push(performance.now() - t0);
      bytes.push(fs.bytesRead);
      if (!page.text) throw new Error(`empty page at ${offset}`);
    }
    await store.close();
    report({
      bench: 'read_result_page_100mb_ms',
      value: r3(median(samples)),
      unit: 'ms',
      target: 5,
      better: 'lower',
      max: r3(Math.max(...samples)),
      resultBytes: meta.byteSize,
    });
    report({
      bench: 'read_result_page_100mb_bytes_read',
      value: Math.max(...bytes),
      unit: 'bytes',
      // The page, plus at most 4 bytes to find character boundaries.
      target: READ_RESULT_DEFAULT_LIMIT + 4,
      better: 'lower',
      pageBytes: READ_RESULT_DEFAULT_LIMIT,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
