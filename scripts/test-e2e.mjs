#!/usr/bin/env node
// `npm run test:e2e`: mocha suites in test/e2e drive a real VS Code (code-server) in Chromium with the
// packaged .vsix installed; setup/teardown (test/e2e/setup.ts) stop every process they start.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMocha } from './lib/mocha-files.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.exit(runMocha(root, '.mocharc.e2e.json', process.argv.slice(2)));
