#!/usr/bin/env node
// `npm run package`: production build, then vsce packages headroom-<version>.vsix holding only what a
// user needs (see .vscodeignore). Prints the file list size and the .vsix size.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, `headroom-${pkg.version}.vsix`);

execFileSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: root, stdio: 'inherit' });
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
});
const mb = statSync(out).size / (1024 * 1024);
console.log(`Packaged ${out} (${mb.toFixed(2)} MB)`);
