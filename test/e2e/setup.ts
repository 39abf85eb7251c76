/**
 * Root hooks for the e2e layer: one code-server with the packaged .vsix installed and one Chromium for
 * the whole run, both stopped (by pid) in afterAll even when a test fails or the run is interrupted.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  ROOT,
  ensureTestVsCode,
  installVsix,
  startCodeServer,
  writeUserSettings,
  type RunningCodeServer,
} from '../../scripts/lib/code-server.mjs';

export const RESULTS = join(ROOT, 'test-results', 'e2e');

export interface E2EEnv {
  server: RunningCodeServer;
  browser: Browser;
  workspace: string;
  userDataDir: string;
}

let env: E2EEnv | undefined;

/** The running code-server and browser, available inside tests. */
export function e2e(): E2EEnv {
  if (!env) throw new Error('e2e environment is not running (setup failed; see the first error above)');
  return env;
}

function stop(): void {
  env?.server.stop();
  void env?.browser.close().catch(() => {});
}

process.once('SIGINT', () => {
  stop();
  process.exit(130);
});

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(15 * 60_000);
    ensureTestVsCode();
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const vsix = join(ROOT, `headroom-${pkg.version}.vsix`);
    if (!process.env.HEADROOM_SKIP_PACKAGE) {
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'package.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    const dirs = { ext: join(RESULTS, 'extensions'), data: join(RESULTS, 'user-data'), ws: join(RESULTS, 'workspace') };
    for (const d of Object.values(dirs)) {
      rmSync(d, { recursive: true, force: true });
      mkdirSync(d, { recursive: true });
    }
    writeFileSync(join(dirs.ws, 'hello.ts'), 'export const greeting = "hello";\n');
    writeUserSettings(dirs.data, { 'workbench.colorTheme': 'Default Dark Modern' });
    installVsix(vsix, dirs.ext, dirs.data);
    const server = await startCodeServer({
      workspace: dirs.ws,
      extensionsDir: dirs.ext,
      userDataDir: dirs.data,
      logFile: join(RESULTS, 'code-server.log'),
    });
    try {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      env = { server, browser, workspace: dirs.ws, userDataDir: dirs.data };
    } catch (err) {
      server.stop();
      throw err;
    }
  },
  afterAll() {
    stop();
  },
};
