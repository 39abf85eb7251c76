/**
 * The pure-JS text search used when no ripgrep binary exists: the same rules (.gitignore, glob on
 * the relative path, skip binaries, special files and files that look like secrets by their name or
 * the real file a link leads to, bounded reads). Evaluates the model's regex, so it runs in the
 * pattern worker (`pattern-jobs.ts`), never on the extension host's thread.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { walkFiles } from './file-walk';
import { toRelative } from './path-guard';
import { secretAllowList, secretReason } from './secret-files';
import { globMatcher } from './glob';
import type { SearchTextOptions, TextMatch } from './ports';
import { readRegularFile } from './safe-file';
import { clipMatchText as clip, searchRegex, type SearchOutcome } from './search-regex';

const FALLBACK_MAX_FILE_BYTES = 4 * 1024 * 1024;
const FALLBACK_MAX_FILES = 50_000;

export async function searchWithFallback(
  root: string,
  realRoot: string,
  pattern: string,
  options: SearchTextOptions,
  secretFilesAllow: readonly string[] = [],
): Promise<SearchOutcome> {
  const re = searchRegex(pattern, options.caseSensitive ?? false);
  const allowed = secretAllowList(secretFilesAllow);
  const matchesGlob = options.glob ? globMatcher(options.glob) : () => true;
  const matches: TextMatch[] = [];
  let scanned = 0;
  for await (const rel of walkFiles(root, { respectGitignore: true, realRoot, signal: options.signal })) {
    if (!matchesGlob(rel)) continue;
    if (++scanned > FALLBACK_MAX_FILES) return { matches, truncated: true };
    const real = await fs.realpath(path.join(root, rel)).catch(() => undefined);
    if (!real || secretReason(rel, toRelative(realRoot, real), allowed)) continue;
    const read = await readRegularFile(real, FALLBACK_MAX_FILE_BYTES, rel).catch(() => undefined);
    if (!read || read.truncated) continue;
    const buf = read.bytes;
    if (buf.subarray(0, 8000).includes(0)) continue;
    const lines = buf.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (re.test(lines[i])) {
        if (matches.length >= options.maxResults) return { matches, truncated: true };
        matches.push({ path: rel, line: i + 1, text: clip(lines[i]) });
      }
    }
  }
  return { matches, truncated: false };
}
