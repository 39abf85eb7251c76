#!/usr/bin/env node
// Runs every benchmark under bench/ (files named *.bench.ts or *.bench.mjs), each in a fresh process,
// and passes through their output: one JSON object per line,
//   {"bench": name, "value": n, "unit": "ms", "target": n, "better": "lower"|"higher"}
// `npm run bench -- NAME…` runs only the bench files whose base name starts with one of the NAMEs;
// a NAME that matches no file instead filters the printed figures by their "bench" name prefix.
// Exit code 1 when any figure misses its target, so a regression is visible.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const files = readdirSync(here)
  .filter((f) => /\.bench\.(ts|mjs)$/.test(f))
  .sort();
const base = (f) => f.replace(/\.bench\.(ts|mjs)$/, '');
let selected = files;
let metricFilter = [];
if (names.length) {
  selected = files.filter((f) => names.some((n) => base(f).startsWith(n)));
  metricFilter = names.filter((n) => !files.some((f) => base(f).startsWith(n)));
  if (metricFilter.length) selected = [...new Set([...selected, ...files])];
}

let missed = 0;
for (const f of selected) {
  const args = f.endsWith('.ts') ? ['--import', 'tsx', join(here, f)] : [join(here, f)];
  const r = spawnSync(process.execPath, ['--expose-gc', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, HEADROOM_BENCH: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const line of (r.stdout || '').split('\n')) {
    if (!line.trim()) continue;
    let o;
    try {
      o = JSON.parse(line);
    } catch {
      process.stderr.write(`[${f}] ${line}\n`);
      continue;
    }
    if (metricFilter.length && names.length && !names.some((n) => String(o.bench).startsWith(n)) && !names.some((n) => base(f).startsWith(n))) continue;
    if (typeof o.target === 'number' && typeof o.value === 'number') {
      const ok = o.better === 'higher' ? o.value >= o.target : o.value <= o.target;
      if (!ok) missed++;
    }
    process.stdout.write(JSON.stringify(o) + '\n');
  }
  if (r.status !== 0) {
    process.stderr.write(`bench ${f} exited with ${r.status}\n`);
    missed++;
  }
}
process.exit(missed ? 1 : 0);
