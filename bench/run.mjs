#!/usr/bin/env node
// Runs every benchmark under bench/ (files named *.bench.ts or *.bench.mjs), each in a fresh process,
// and passes through their output: one JSON object per line,
//   {"bench": name, "value": n, "unit": "ms", "target": n, "better": "lower"|"higher"}
// `npm run bench -- NAME…` runs only the bench files whose base name starts with one of the NAMEs;
// a NAME that matches no file instead filters the printed figures by their "bench" name prefix.
//
// A bench cannot pass vacuously. Exit code 1 when any of these happens:
// - a figure misses its target;
// - a figure's value is not a finite number (NaN, ±Infinity and null all mean "measured nothing");
// - a bench file printed no figure, or did not print a figure its header promises
//   (a line `// figures: name1 name2 …` near the top of the file);
// - a bench process exited non-zero.
// HEADROOM_BENCH_DIR points the runner at another folder (the runner's own tests use it).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = process.env.HEADROOM_BENCH_DIR ? resolve(process.env.HEADROOM_BENCH_DIR) : dirname(fileURLToPath(import.meta.url));
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
if (!selected.length) {
  process.stderr.write(`no bench file matches ${names.join(' ')}\n`);
  process.exit(1);
}

/** The figures a bench file promises in its header comment. */
function promised(file) {
  const head = readFileSync(join(here, file), 'utf8').split('\n').slice(0, 30);
  const line = head.find((l) => /^\s*\/\/\s*figures:/.test(l));
  return line
    ? line
        .replace(/^\s*\/\/\s*figures:/, '')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
    : [];
}

const problems = [];
let missed = 0;
for (const f of selected) {
  const args = f.endsWith('.ts') ? ['--import', 'tsx', join(here, f)] : [join(here, f)];
  const r = spawnSync(process.execPath, ['--expose-gc', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, HEADROOM_BENCH: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const seen = new Set();
  for (const line of (r.stdout || '').split('\n')) {
    if (!line.trim()) continue;
    let o;
    try {
      o = JSON.parse(line);
    } catch {
      process.stderr.write(`[${f}] ${line}\n`);
      continue;
    }
    if (!o || typeof o.bench !== 'string') {
      process.stderr.write(`[${f}] ${line}\n`);
      continue;
    }
    seen.add(o.bench);
    const show = !(metricFilter.length && !names.some((n) => o.bench.startsWith(n)) && !names.some((n) => base(f).startsWith(n)));
    if (typeof o.value !== 'number' || !Number.isFinite(o.value)) {
      problems.push(`${o.bench} (${f}) measured nothing: value ${JSON.stringify(o.value)}`);
    } else if (typeof o.target === 'number') {
      const ok = o.better === 'higher' ? o.value >= o.target : o.value <= o.target;
      if (!ok && show) {
        missed++;
        process.stderr.write(`missed: ${o.bench} = ${o.value} (target ${o.better === 'higher' ? '≥' : '≤'} ${o.target})\n`);
      }
    }
    if (show) process.stdout.write(JSON.stringify(o) + '\n');
  }
  if (r.status !== 0) problems.push(`bench ${f} exited with ${r.status ?? r.signal}`);
  if (!seen.size) problems.push(`bench ${f} printed no figure`);
  for (const name of promised(f)) if (!seen.has(name)) problems.push(`bench ${f} did not print ${name}`);
}
for (const p of problems) process.stderr.write(`bench failure: ${p}\n`);
process.exit(missed || problems.length ? 1 : 0);
