/**
 * Entry point of the integration suites, shared by both ways of running them:
 * - `@vscode/test-electron` (extensionTestsPath): VS Code calls `run()` and reads a rejection as failure;
 * - the code-server runner extension (test/runner-extension): calls `run()` and writes the returned
 *   results to a file the launcher reads.
 * Suites are bundled into this file by scripts/test-integration.mjs (see suites.ts).
 */
import { createRequire } from 'node:module';
import type MochaType from 'mocha';
import { registerSuites } from './suites';

export interface TestRecord {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  error?: string;
}

export interface RunResults {
  passed: number;
  failed: number;
  pending: number;
  tests: TestRecord[];
}

export async function run(options: { mochaPath?: string; grep?: string; reportOnly?: boolean } = {}): Promise<RunResults> {
  // The runner may hand over its own mocha (a path known only at run time), so it is required here.
  const Mocha = createRequire(__filename)(options.mochaPath ?? 'mocha') as typeof MochaType;
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  if (options.grep) mocha.grep(options.grep);
  mocha.suite.emit('pre-require', globalThis, 'integration', mocha);
  await registerSuites();
  const results: RunResults = { passed: 0, failed: 0, pending: 0, tests: [] };
  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', (t) => {
      results.passed++;
      results.tests.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration });
    });
    runner.on('fail', (t, err: Error) => {
      results.failed++;
      results.tests.push({ title: t.fullTitle(), state: 'failed', error: String(err?.stack ?? err) });
    });
    runner.on('pending', (t) => {
      results.pending++;
      results.tests.push({ title: t.fullTitle(), state: 'pending' });
    });
  });
  if (!options.reportOnly && results.failed > 0) {
    // Under @vscode/test-electron a rejection is how failure is reported.
    throw new Error(`${results.failed} integration tests failed`);
  }
  return results;
}
