/**
 * Text search with ripgrep (VS Code ships one): linear-time regexes and globs, .gitignore honoured,
 * files that look like secrets never searched (excluded by glob, and any match in one dropped).
 * Without ripgrep the pure-JS scan in `fallback-search.ts` runs, in the pattern worker.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { HeadroomError } from '../common/errors';
import type { SearchTextOptions, TextMatch } from './ports';
import { clipMatchText as clip, type SearchOutcome } from './search-regex';
import { SECRET_FOLDERS, SECRET_RULES, secretReason, type SecretAllowList } from './secret-files';

/** The user's exceptions to the secret policy: their globs, and the matcher built from them. */
export interface SecretFilter {
  globs: readonly string[];
  allowed: SecretAllowList;
}

/**
 * ripgrep arguments that keep secret-looking files out of the search, so no match in one is counted
 * either. A `--glob` that is not negated would make ripgrep search ONLY matching files, so when the
 * user allowed some secrets nothing is excluded here and the matches are filtered afterwards instead.
 */
export function secretExclusions(filter: SecretFilter): string[] {
  if (filter.globs.length) return [];
  const globs = [...SECRET_FOLDERS, ...SECRET_RULES.flatMap((r) => r.globs.map((g) => (g.includes('/') ? `**/${g}` : g)))];
  return globs.flatMap((g) => ['--iglob', `!${g}`]);
}

const RgLine = z.object({
  type: z.literal('match'),
  data: z.object({
    path: z.object({ text: z.string() }),
    line_number: z.number(),
    lines: z.object({ text: z.string() }).partial(),
  }),
});

/** Runs ripgrep at `rgPath` in `root`. Rejects when ripgrep reports an error (e.g. a bad regex). */
export function searchWithRipgrep(
  rgPath: string,
  root: string,
  pattern: string,
  options: SearchTextOptions,
  secrets: SecretFilter,
): Promise<SearchOutcome> {
  const args = ['--json', '--no-require-git', '--hidden', '--glob', '!.git', options.caseSensitive ? '--case-sensitive' : '--ignore-case'];
  if (options.glob) args.push('--glob', options.glob);
  // After the model's glob: a later glob wins in ripgrep.
  args.push(...secretExclusions(secrets));
  args.push('-e', pattern, '--', '.');
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const matches: TextMatch[] = [];
    let truncated = false;
    let pending = '';
    let stderr = '';
    const decoder = new StringDecoder('utf8');
    const onAbort = () => child.kill();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const takeLine = (line: string) => {
      if (truncated || !line) return;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        return;
      }
      const parsed = RgLine.safeParse(json);
      if (!parsed.success) return;
      if (matches.length >= options.maxResults) {
        truncated = true;
        child.kill();
        return;
      }
      const d = parsed.data.data;
      const rel = d.path.text.replace(/^\.\//, '');
      // ripgrep follows no links, so the path is the real file.
      if (secretReason(rel, rel, secrets.allowed)) return;
      matches.push({ path: rel, line: d.line_number, text: clip(d.lines.text ?? '') });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      pending += decoder.write(chunk);
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        takeLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code) => {
      options.signal?.removeEventListener('abort', onAbort);
      takeLine(pending);
      if (code === 2 && !truncated && matches.length === 0 && !options.signal?.aborted) {
        reject(new HeadroomError('invalid_tool_input', `Search failed: ${stderr.trim() || 'ripgrep exited with an error'}`));
      } else {
        resolve({ matches, truncated });
      }
    });
  });
}
