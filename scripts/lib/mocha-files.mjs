// Runs mocha with one of the repository's configs. Files named on the command line replace the
// config's spec glob instead of joining it (mocha concatenates the two, so `npm run test:e2e -- one.ts`
// used to run every suite).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Spawns mocha with `configName` from `root` and the given arguments; returns its exit status. */
export function runMocha(root, configName, args) {
  const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const files = args.filter((a) => /\.(test|e2e\.test)\.ts$/.test(a) || a.includes('*'));
  let config = configName;
  if (files.length > 0) {
    const rest = JSON.parse(readFileSync(join(root, configName), 'utf8'));
    delete rest.spec;
    const dir = join(root, 'out');
    mkdirSync(dir, { recursive: true });
    config = join(dir, `${configName.replace(/^\./, '')}.files.json`);
    writeFileSync(config, JSON.stringify(rest));
  }
  const r = spawnSync(process.execPath, [mocha, '--config', config, ...args], { cwd: root, stdio: 'inherit' });
  return r.status ?? 1;
}
