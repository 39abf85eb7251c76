#!/usr/bin/env node
// `npm run test:unit [-- files…]`: the unit suites in plain mocha; named files run alone.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMocha } from './lib/mocha-files.mjs';

process.exit(runMocha(join(dirname(fileURLToPath(import.meta.url)), '..'), '.mocharc.unit.json', process.argv.slice(2)));
