#!/usr/bin/env node
// `npm test`: type-checks and lints (ESLint + Prettier), then runs every test layer in order — unit (plain mocha), integration (real
// VS Code extension host), e2e (real VS Code in Chromium) — and ends with one totals line
// "N passed, N failed". A layer that cannot start counts as a failure, never as zero tests.
import './ensure-deps.mjs';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);

const layers = [
  { name: 'types', cmd: ['npm', 'run', '--silent', 'check-types'], counted: false },
  { name: 'lint', cmd: ['npm', 'run', '--silent', 'lint'], counted: false },
  { name: 'unit', cmd: ['npm', 'run', '--silent', 'test:unit'] },
  { name: 'integration', cmd: ['npm', 'run', '--silent', 'test:integration'] },
  { name: 'e2e', cmd: ['npm', 'run', '--silent', 'test:e2e'] },
].filter((l) => !only.length || only.includes(l.name));

function runLayer(layer) {
  return new Promise((resolve) => {
    const started = Date.now();
    console.log(`\n=== ${layer.name} ===`);
    const child = spawn(layer.cmd[0], layer.cmd.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let out = '';
    const tee = (stream, dest) =>
      stream.on('data', (d) => {
        out += d;
        dest.write(d);
      });
    tee(child.stdout, process.stdout);
    tee(child.stderr, process.stderr);
    child.on('close', (code) => {
      const plain = stripVTControlCharacters(out);
      const passing = [...plain.matchAll(/^\s*(\d+) passing/gm)].reduce((s, m) => s + Number(m[1]), 0);
      const failing = [...plain.matchAll(/^\s*(\d+) failing/gm)].reduce((s, m) => s + Number(m[1]), 0);
      resolve({ ...layer, code, passing, failing, seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

const startedAll = Date.now();
const results = [];
for (const layer of layers) results.push(await runLayer(layer));

let passed = 0;
let failed = 0;
console.log('\n=== summary ===');
for (const r of results) {
  if (r.counted === false) {
    console.log(`${r.name.padEnd(12)} ${r.code === 0 ? 'ok' : 'FAILED'} (${r.seconds} s)`);
    if (r.code !== 0) failed++;
    continue;
  }
  // A layer that exited non-zero without reporting a failing test still failed (it could not run).
  const layerFailed = r.failing + (r.code !== 0 && r.failing === 0 ? 1 : 0) + (r.code === 0 && r.passing === 0 ? 1 : 0);
  passed += r.passing;
  failed += layerFailed;
  console.log(`${r.name.padEnd(12)} ${r.passing} passed, ${layerFailed} failed (${r.seconds} s)`);
}
console.log(`total ${Math.round((Date.now() - startedAll) / 1000)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
