// activation_ms: require + activate of the production bundle in a fresh process, median of 9 runs.
// vsix_mb: size of the packaged .vsix. Both build/package first if needed.
// figures: activation_ms host_load_ms vsix_mb
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const vsix = join(root, `headroom-${pkg.version}.vsix`);
// Always package, so both figures describe the current sources in production form.
execFileSync(process.execPath, [join(root, 'scripts', 'package.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });

const samples = [];
const hostSamples = [];
for (let i = 0; i < 9; i++) {
  const out = execFileSync(process.execPath, [join(root, 'bench', 'activation-child.cjs'), join(root, 'dist', 'extension.js')], {
    encoding: 'utf8',
  });
  const { ms, hostMs } = JSON.parse(out);
  samples.push(ms);
  hostSamples.push(hostMs);
}
samples.sort((a, b) => a - b);
hostSamples.sort((a, b) => a - b);
const median = samples[Math.floor(samples.length / 2)];
const hostMedian = hostSamples[Math.floor(hostSamples.length / 2)];
const line = (o) => process.stdout.write(JSON.stringify(o) + '\n');
line({
  bench: 'activation_ms',
  value: Math.round(median * 100) / 100,
  unit: 'ms',
  target: 50,
  better: 'lower',
  samples: samples.map((s) => Math.round(s * 10) / 10),
});
line({
  bench: 'host_load_ms',
  value: Math.round(hostMedian * 100) / 100,
  unit: 'ms',
  note: 'first view open / command: require dist/host.js + createHost (reported)',
});
line({ bench: 'vsix_mb', value: Math.round((statSync(vsix).size / 1048576) * 1000) / 1000, unit: 'MB', target: 5, better: 'lower' });
