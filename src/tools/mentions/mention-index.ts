/**
 * What the @-mention picker offers: the workspace's files and folders as `list_files` sees them
 * (.gitignore honoured, `.git` skipped, no link leading outside), minus secret files, ranked by the
 * typed text. The walk is cached for a few seconds so typing does not walk the tree per keystroke,
 * and bounded so a huge tree costs at most `MAX_FILES` entries.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MentionOption } from '../../protocol/mentions';
import { GitignoreMatcher } from '../gitignore';
import { walkFiles } from '../file-walk';
import { decodeUtf8Prefix, readRegularFile } from '../safe-file';
import { fuzzyFilter } from './fuzzy';
import { isSecretPath } from '../secret-files';

export const MAX_FILES = 20_000;
const FRESH_MS = 5_000;
const PICKER_ROWS = 50;

export class MentionIndex {
  private cached: { at: number; options: Promise<MentionOption[]> } | undefined;

  constructor(
    private readonly root: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The best `limit` files and folders for `query` (the text typed after `@`). Never rejects. */
  async search(query: string, limit = PICKER_ROWS): Promise<MentionOption[]> {
    const options = await this.options().catch(() => []);
    return fuzzyFilter(query.trim(), options, limit);
  }

  private options(): Promise<MentionOption[]> {
    if (!this.cached || this.now() - this.cached.at > FRESH_MS) this.cached = { at: this.now(), options: this.walk() };
    return this.cached.options;
  }

  private async walk(): Promise<MentionOption[]> {
    const realRoot = await fs.realpath(this.root);
    const files: MentionOption[] = [];
    const folders = new Set<string>();
    for await (const rel of walkFiles(this.root, { respectGitignore: true, realRoot })) {
      if (isSecretPath(rel)) continue;
      files.push({ kind: 'file', path: rel });
      for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) folders.add(rel.slice(0, i));
      if (files.length >= MAX_FILES) break;
    }
    const dirs = [...folders].filter((f) => !isSecretPath(f)).map((f): MentionOption => ({ kind: 'folder', path: f }));
    return [...dirs.sort((a, b) => (a.path < b.path ? -1 : 1)), ...files];
  }
}

/** A .gitignore is read up to this size (as the walk does). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * Whether .gitignore files (at the root and in each folder above the path) ignore the
 * workspace-relative `relPath`, or one of the folders it lies in. `.git` itself is always ignored.
 */
export async function isIgnoredPath(root: string, relPath: string, isDir: boolean): Promise<boolean> {
  const parts = relPath.split('/');
  if (parts.includes('.git')) return true;
  const matcher = new GitignoreMatcher();
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const read = await readRegularFile(path.join(root, dir, '.gitignore'), MAX_GITIGNORE_BYTES).catch(() => undefined);
    if (read) matcher.add(dir, decodeUtf8Prefix(read.bytes, read.truncated));
  }
  for (let i = 1; i <= parts.length; i++) {
    const last = i === parts.length;
    if (matcher.ignores(parts.slice(0, i).join('/'), last ? isDir : true)) return true;
  }
  return false;
}
