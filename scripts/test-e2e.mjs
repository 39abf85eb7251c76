#!/usr/bin/env node
// `npm run test:e2e`: mocha suites in test/e2e drive a real VS Code (code-server) in Chromium with the
// packaged .vsix installed; setup/teardown (test/e2e/setup.ts) stop every process they start.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const r = spawnSync(process.execPath, [mocha, '--config', '.mocharc.e2e.json', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
