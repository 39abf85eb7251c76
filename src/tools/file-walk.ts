/**
 * Walks a workspace folder tree breadth-first, skipping `.git`, not following symbolic links to
 * folders, and (optionally) honouring .gitignore files at every level. Async all the way, so a large
 * tree never blocks the event loop for long.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GitignoreMatcher } from './gitignore';
import { isInside } from './path-guard';
import { decodeUtf8Prefix, readRegularFile } from './safe-file';

/** A .gitignore is read up to this size (a repository could commit a huge one). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

export interface WalkOptions {
  respectGitignore: boolean;
  /** `fs.realpath` of the root: symbolic links to files outside it are skipped. */
  realRoot: string;
  signal?: AbortSignal;
}

/** Yields workspace-relative file paths (forward slashes), in folder order, sorted per folder. */
export async function* walkFiles(root: string, options: WalkOptions): AsyncGenerator<string> {
  const ignore = new GitignoreMatcher();
  const queue: string[] = [''];
  while (queue.length) {
    if (options.signal?.aborted) return;
    const dir = queue.shift() as string;
    const absDir = dir ? path.join(root, dir) : root;
    let entries;
    try {
      entries = await fs.readdir(absDir, { withFileTypes: true });
    } catch {
      continue; // unreadable folder: skip it, as git and ripgrep do
    }
    if (options.respectGitignore && entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      try {
        const read = await readRegularFile(path.join(absDir, '.gitignore'), MAX_GITIGNORE_BYTES);
        ignore.add(dir, decodeUtf8Prefix(read.bytes, read.truncated));
      } catch {
        // unreadable .gitignore: ignore nothing extra
      }
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name === '.git') continue;
        if (options.respectGitignore && ignore.ignores(rel, true)) continue;
        queue.push(rel);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (entry.isSymbolicLink()) {
          const target = path.join(absDir, entry.name);
          const st = await fs.stat(target).catch(() => undefined);
          if (!st?.isFile()) continue;
          const real = await fs.realpath(target).catch(() => '');
          if (!real || !isInside(options.realRoot, real)) continue;
        }
        if (options.respectGitignore && ignore.ignores(rel, false)) continue;
        yield rel;
      }
    }
  }
}
