/**
 * What the workspace's files look like now, cheaply: each file's size and modification time (not its
 * content), walked like `list_files` (.gitignore honoured, `.git/` skipped, links out of the folder
 * not followed), plus git's HEAD and index so a commit or a checkout counts as a change. Two of them
 * say which files a command or an external tool changed; a digest says whether anything changed at all
 * since a command last ran. Bounded: a walk past `limit` files or `timeoutMs` is incomplete, and an
 * incomplete one has no digest (nothing is claimed about a workspace not seen whole). Never throws.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { walkFiles } from './file-walk';

export interface FileVersions {
  /** Workspace-relative path → "size:mtime". */
  files: Map<string, string>;
  /** Git's own state (HEAD, index), which the walk skips. */
  git: string;
  /** False when the walk stopped early (too many files, too slow, unreadable root). */
  complete: boolean;
}

export interface FileVersionOptions {
  /** At most this many files (default 20,000). */
  limit?: number;
  /** At most this long (default 3 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface FileChange {
  path: string;
  change: 'created' | 'modified' | 'deleted';
}

/** Stats looked up at once while walking: enough to keep the disk busy, not enough to flood it. */
const BATCH = 64;

/** The versions of the files under `root` now. */
export async function fileVersions(root: string, options: FileVersionOptions = {}): Promise<FileVersions> {
  const limit = options.limit ?? 20_000;
  const deadline = Date.now() + (options.timeoutMs ?? 3_000);
  const files = new Map<string, string>();
  let complete = true;
  try {
    const realRoot = await fs.realpath(root);
    let batch: string[] = [];
    const flush = async () => {
      const stats = await Promise.all(batch.map((rel) => fs.stat(path.join(root, rel)).catch(() => undefined)));
      batch.forEach((rel, i) => {
        const st = stats[i];
        if (st?.isFile()) files.set(rel, `${st.size}:${st.mtimeMs}`);
      });
      batch = [];
    };
    for await (const rel of walkFiles(root, { respectGitignore: true, realRoot, signal: options.signal })) {
      batch.push(rel);
      if (batch.length >= BATCH) await flush();
      if (files.size + batch.length > limit || Date.now() > deadline || options.signal?.aborted) {
        complete = false;
        break;
      }
    }
    await flush();
  } catch {
    complete = false;
  }
  return { files, git: await gitState(root), complete };
}

/** Git's HEAD and index (size and time): a commit, a checkout or a stage changes them. */
async function gitState(root: string): Promise<string> {
  const parts: string[] = [];
  for (const name of ['HEAD', 'index', 'ORIG_HEAD']) {
    const st = await fs.stat(path.join(root, '.git', name)).catch(() => undefined);
    parts.push(st ? `${name}=${st.size}:${st.mtimeMs}` : `${name}=-`);
  }
  return parts.join(',');
}

/** A digest of `v` (equal digests: nothing seen changed); undefined for an incomplete walk. */
export function versionsDigest(v: FileVersions): string | undefined {
  if (!v.complete) return undefined;
  const hash = createHash('sha256');
  hash.update(v.git);
  for (const key of [...v.files.keys()].sort()) hash.update(`\0${key}\0${v.files.get(key)}`);
  return hash.digest('hex').slice(0, 32);
}

/** Files created, modified or deleted between two walks (none when either is incomplete), by path. */
export function changedFiles(before: FileVersions, after: FileVersions): FileChange[] {
  if (!before.complete || !after.complete) return [];
  const out: FileChange[] = [];
  for (const [p, v] of after.files) {
    const was = before.files.get(p);
    if (was === undefined) out.push({ path: p, change: 'created' });
    else if (was !== v) out.push({ path: p, change: 'modified' });
  }
  for (const p of before.files.keys()) if (!after.files.has(p)) out.push({ path: p, change: 'deleted' });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
