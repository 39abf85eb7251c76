/**
 * The bench runner cannot pass vacuously: a figure that measured nothing, a bench that printed nothing or
 * left out a promised figure, and a bench that crashed each make `npm run bench` exit non-zero.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNNER = join(__dirname, '..', '..', 'bench', 'run.mjs');

function runBench(source: string): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'headroom-bench-runner-'));
  try {
    writeFileSync(join(dir, 'probe.bench.mjs'), source);
    const r = spawnSync(process.execPath, [RUNNER], { encoding: 'utf8', env: { ...process.env, HEADROOM_BENCH_DIR: dir } });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const line = (o: object) => `process.stdout.write(${JSON.stringify(JSON.stringify(o) + '\n')});\n`;

describe('bench runner', () => {
  it('passes a bench whose finite figure meets its target', () => {
    const r = runBench(line({ bench: 'x_ms', value: 3, unit: 'ms', target: 5, better: 'lower' }));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /"x_ms"/);
  });

  it('fails a figure that misses its target', () => {
    assert.equal(runBench(line({ bench: 'x_ms', value: 9, unit: 'ms', target: 5, better: 'lower' })).status, 1);
  });

  for (const bad of ['null', 'NaN', 'Infinity', '-Infinity', '"3"']) {
    it(`fails a figure whose value is ${bad} (measured nothing)`, () => {
      const src = `process.stdout.write('{"bench":"x","value":${bad},"unit":"ms","target":5,"better":"lower"}\\n');\n`;
      const r = runBench(src);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /measured nothing|printed no figure/);
    });
  }

  it('fails a bench that printed no figure', () => {
    const r = runBench('console.log("hello");\n');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /printed no figure/);
  });

  it('fails a bench that left out a figure its header promises', () => {
    const r = runBench('// figures: a_ms b_ms\n' + line({ bench: 'a_ms', value: 1, unit: 'ms' }));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /did not print b_ms/);
  });

  it('fails a bench process that exits non-zero, even after printing good figures', () => {
    const r = runBench(line({ bench: 'a_ms', value: 1, unit: 'ms', target: 5, better: 'lower' }) + 'process.exit(3);\n');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /exited with 3/);
  });
});
