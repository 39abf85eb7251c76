#!/usr/bin/env node
// `npm start`: builds and packages Headroom, installs the cached code-server if missing, serves a real
// VS Code on 127.0.0.1 with Headroom installed and a workspace folder open, and prints the URL.
// Ctrl+C stops it. HEADROOM_PORT picks the port; HEADROOM_WORKSPACE the folder (default: a sample one).
import './ensure-deps.mjs';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const { ROOT, CACHE, ensureCodeServer, installVsix, startCodeServer, writeUserSettings } = await import('./lib/code-server.mjs');

ensureCodeServer();
execFileSync(process.execPath, [join(ROOT, 'scripts', 'package.mjs')], { cwd: ROOT, stdio: 'inherit' });
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const vsix = join(ROOT, `headroom-${pkg.version}.vsix`);

const home = join(CACHE, 'start');
const dirs = { ext: join(home, 'extensions'), data: join(home, 'user-data') };
const workspace = resolve(process.env.HEADROOM_WORKSPACE || join(home, 'workspace'));
for (const d of [...Object.values(dirs), workspace]) mkdirSync(d, { recursive: true });
if (!process.env.HEADROOM_WORKSPACE && !existsSync(join(workspace, 'README.md'))) {
  writeFileSync(join(workspace, 'README.md'), '# Sample workspace\n\nOpen the Headroom view in the activity bar.\n');
}
if (!existsSync(join(dirs.data, 'User', 'settings.json'))) writeUserSettings(dirs.data, {});
installVsix(vsix, dirs.ext, dirs.data);

const port = Number(process.env.HEADROOM_PORT) || 8080;
const server = await startCodeServer({
  workspace,
  extensionsDir: dirs.ext,
  userDataDir: dirs.data,
  port,
  logFile: join(home, 'code-server.log'),
});
console.log(
  `\nHeadroom is running in VS Code at:\n\n  ${server.folderUrl}\n\nOpen it in a browser and click the Headroom icon in the activity bar. Ctrl+C stops it.`,
);
const stop = () => {
  server.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.proc.on('exit', (code) => {
  console.log(`code-server exited (${code})`);
  process.exit(code ?? 1);
});
