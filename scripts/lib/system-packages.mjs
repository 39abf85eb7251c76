// The Debian packages a real VS Code needs here: libkrb5-dev (code-server's `kerberos` module builds
// against it) and chromium (drives VS Code in the integration and e2e tests). Installed automatically when
// running as root with apt; otherwise one clear line says the exact command. Node's standard library only.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** What each package is for, shown in the one line printed before installing it. */
const WHY = {
  'libkrb5-dev': "code-server's kerberos module is built against it",
  chromium: 'drives the real VS Code in the integration and e2e tests',
};

/** True when a Debian package is installed (dpkg says "install ok installed"). */
function installed(pkg) {
  if (pkg === 'chromium' && process.env.CHROMIUM_PATH && existsSync(process.env.CHROMIUM_PATH)) return true;
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function canApt() {
  return process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Makes sure the named Debian packages are installed. As root with apt: installs what is missing and
 * says what and why in one line. Otherwise throws one line with the exact command to run.
 * @param {string[]} packages
 */
export function ensureSystemPackages(packages, { log = console.log } = {}) {
  const missing = packages.filter((p) => !installed(p));
  if (!missing.length) return;
  const command = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (!canApt()) {
    throw new Error(`Headroom needs ${missing.join(' and ')} (${missing.map((p) => WHY[p] ?? p).join('; ')}). Run as root: ${command}`);
  }
  log(`Installing ${missing.join(', ')} with apt-get (${missing.map((p) => WHY[p] ?? p).join('; ')})…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const quiet = { stdio: ['ignore', 'ignore', 'inherit'], env };
  if (spawnSync('apt-get', ['update', '-q'], quiet).status !== 0) throw new Error(`apt-get update failed; run: ${command}`);
  if (spawnSync('apt-get', ['install', '-y', '-q', ...missing], quiet).status !== 0)
    throw new Error(`apt-get install failed; run: ${command}`);
}
