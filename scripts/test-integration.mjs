#!/usr/bin/env node
// `npm run test:integration`: runs test/integration/ inside a real VS Code extension host.
// - With VSCODE_EXECUTABLE set (or --electron, where VS Code can be downloaded): @vscode/test-electron.
// - Otherwise (offline, here and in CI): code-server with the packaged .vsix and the test-runner
//   extension (test/runner-extension) installed; Chromium connects so the extension host starts.
// Same suites both ways. Prints mocha-style results and a closing "N passing" / "N failing" line.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, ensureTestVsCode, installVsix, startCodeServer, writeUserSettings, CHROMIUM, CHROMIUM_ARGS } from './lib/code-server.mjs';

const OUT = join(ROOT, 'test-results', 'integration');
const electron = process.argv.includes('--electron') || !!process.env.VSCODE_EXECUTABLE;
const grep = process.env.HEADROOM_TEST_GREP;

function packageVsix() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const vsix = join(ROOT, `headroom-${pkg.version}.vsix`);
  if (!process.env.HEADROOM_SKIP_PACKAGE || !existsSync(vsix)) {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'package.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return vsix;
}

async function bundleSuites() {
  const outfile = join(OUT, 'bundle', 'index.js');
  await esbuild.build({
    entryPoints: [join(ROOT, 'test', 'integration', 'index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    external: ['vscode', 'mocha'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return outfile;
}

function printResults(results) {
  console.log('');
  for (const t of results.tests) {
    const mark = t.state === 'passed' ? '  ✔' : t.state === 'pending' ? '  -' : '  ✘';
    console.log(`${mark} ${t.title}${t.durationMs ? ` (${t.durationMs} ms)` : ''}`);
    if (t.error)
      console.log(
        t.error
          .split('\n')
          .map((l) => '      ' + l)
          .join('\n'),
      );
  }
  console.log('');
  console.log(`  ${results.passed} passing`);
  if (results.pending) console.log(`  ${results.pending} pending`);
  if (results.failed) console.log(`  ${results.failed} failing`);
}

async function runElectron(testsBundle) {
  const { runTests } = await import('@vscode/test-electron');
  const ws = join(OUT, 'workspace');
  mkdirSync(ws, { recursive: true });
  await runTests({
    vscodeExecutablePath: process.env.VSCODE_EXECUTABLE || undefined,
    extensionDevelopmentPath: ROOT,
    extensionTestsPath: testsBundle,
    launchArgs: [ws, '--disable-extensions', '--disable-workspace-trust'],
  });
  console.log('integration suites passed under @vscode/test-electron');
}

/**
 * `--install-extension` keeps a registry (extensions.json); a folder copied in beside it is only
 * loaded once it is listed there too.
 */
function registerUnpackedExtension(extensionsDir, id, version) {
  const registry = join(extensionsDir, 'extensions.json');
  const list = existsSync(registry) ? JSON.parse(readFileSync(registry, 'utf8')) : [];
  const folder = join(extensionsDir, `${id}-${version}`);
  list.push({
    identifier: { id },
    version,
    location: { $mid: 1, fsPath: folder, external: `file://${folder}`, path: folder, scheme: 'file' },
    relativeLocation: `${id}-${version}`,
    metadata: { installedTimestamp: Date.now(), source: 'vsix' },
  });
  writeFileSync(registry, JSON.stringify(list));
}

async function runCodeServer(testsBundle) {
  ensureTestVsCode();
  const vsix = packageVsix();
  const dirs = { ext: join(OUT, 'extensions'), data: join(OUT, 'user-data'), ws: join(OUT, 'workspace') };
  for (const d of Object.values(dirs)) {
    rmSync(d, { recursive: true, force: true });
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(join(dirs.ws, 'README.md'), '# integration workspace\n');
  writeUserSettings(dirs.data, { 'workbench.colorTheme': 'Default Dark Modern' });
  installVsix(vsix, dirs.ext, dirs.data);
  const runnerDir = join(dirs.ext, 'headroom-dev.headroom-test-runner-0.0.1');
  cpSync(join(ROOT, 'test', 'runner-extension'), runnerDir, { recursive: true });
  registerUnpackedExtension(dirs.ext, 'headroom-dev.headroom-test-runner', '0.0.1');
  const resultsFile = join(OUT, 'results.json');
  rmSync(resultsFile, { force: true });
  writeFileSync(
    join(runnerDir, 'runner-config.json'),
    JSON.stringify({ testsBundle, resultsFile, mochaPath: join(ROOT, 'node_modules', 'mocha'), grep }, null, 2),
  );

  const { chromium } = await import('playwright-core');
  const server = await startCodeServer({
    workspace: dirs.ws,
    extensionsDir: dirs.ext,
    userDataDir: dirs.data,
    logFile: join(OUT, 'code-server.log'),
  });
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // Only the request's commit is awaited: the workbench selector below waits for the page itself (a loaded machine takes longer than goto's 30 s to fire "load").
    await page.goto(server.folderUrl, { waitUntil: 'commit', timeout: 90_000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    const deadline = Date.now() + 5 * 60_000;
    while (!existsSync(resultsFile)) {
      if (Date.now() > deadline)
        throw new Error(
          'integration suites did not finish within 5 minutes (see test-results/integration/user-data/logs/*/exthost1/remoteexthost.log)',
        );
      await new Promise((r) => setTimeout(r, 500));
    }
    await page.screenshot({ path: join(OUT, 'workbench.png') }).catch(() => {});
  } finally {
    await browser?.close().catch(() => {});
    server.stop();
  }
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  printResults(results);
  if (results.passed + results.failed === 0) {
    console.error('No integration test ran: is the runner extension loading? See test-results/integration/code-server.log');
    process.exit(1);
  }
  process.exit(results.failed ? 1 : 0);
}

mkdirSync(OUT, { recursive: true });
const testsBundle = await bundleSuites();
if (electron) await runElectron(testsBundle);
else await runCodeServer(testsBundle);
