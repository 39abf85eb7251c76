/**
 * Finds the ripgrep binary VS Code ships under `vscode.env.appRoot` (the location moved between
 * releases and differs in code-server). Returns undefined when none exists; search then falls back
 * to the pure-JS scan.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

export function ripgrepCandidates(appRoot: string, platform: string = process.platform, arch: string = process.arch): string[] {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  const out: string[] = [];
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    out.push(path.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe));
    out.push(path.join(appRoot, modules, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, exe));
  }
  return out;
}

export function findRipgrep(
  appRoot: string,
  exists: (p: string) => boolean = existsSync,
  platform: string = process.platform,
  arch: string = process.arch,
): string | undefined {
  return ripgrepCandidates(appRoot, platform, arch).find((p) => exists(p));
}
