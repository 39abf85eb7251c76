/**
 * Text search over the workspace: ripgrep when a binary is available (VS Code ships one), else a
 * pure-JS scan that honours the same rules (.gitignore, glob on the relative path, skip binaries).
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { HeadroomError } from '../common/errors';
import { walkFiles } from './file-walk';
import { globMatcher } from './glob';
import type { SearchTextOptions, TextMatch } from './ports';
import { readRegularFile } from './safe-file';

/** Longest line text kept in a match, so one minified line cannot flood the result. */
export const MAX_MATCH_TEXT = 300;
const FALLBACK_MAX_FILE_BYTES = 4 * 1024 * 1024;
const FALLBACK_MAX_FILES = 50_000;

export interface SearchOutcome {
  matches: TextMatch[];
  truncated: boolean;
}

function clip(text: string): string {
  const t = text.replace(/\r?\n$/, '');
  return t.length > MAX_MATCH_TEXT ? `${t.slice(0, MAX_MATCH_TEXT)}… [${t.length - MAX_MATCH_TEXT} more chars]` : t;
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A JS RegExp for a ripgrep-style pattern; an invalid regex is searched literally. */
export function searchRegex(pattern: string, caseSensitive: boolean): RegExp {
  const flags = caseSensitive ? 'u' : 'iu';
  try {
    return new RegExp(pattern, flags);
  } catch {
    return new RegExp(escapeRegex(pattern), flags);
  }
}

export async function searchWithFallback(
  root: string,
  realRoot: string,
  pattern: string,
  options: SearchTextOptions,
): Promise<SearchOutcome> {
  const re = searchRegex(pattern, options.caseSensitive ?? false);
  const matchesGlob = options.glob ? globMatcher(options.glob) : () => true;
  const matches: TextMatch[] = [];
  let scanned = 0;
  for await (const rel of walkFiles(root, { respectGitignore: true, realRoot, signal: options.signal })) {
    if (!matchesGlob(rel)) continue;
    if (++scanned > FALLBACK_MAX_FILES) return { matches, truncated: true };
    const real = await fs.realpath(path.join(root, rel)).catch(() => undefined);
    const read = real ? await readRegularFile(real, FALLBACK_MAX_FILE_BYTES, rel).catch(() => undefined) : undefined;
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

const RgLine = z.object({
  type: z.literal('match'),
  data: z.object({
    path: z.object({ text: z.string() }),
    line_number: z.number(),
    lines: z.object({ text: z.string() }).partial(),
  }),
});

/** Runs ripgrep at `rgPath` in `root`. Rejects when ripgrep reports an error (e.g. a bad regex). */
export function searchWithRipgrep(rgPath: string, root: string, pattern: string, options: SearchTextOptions): Promise<SearchOutcome> {
  const args = ['--json', '--no-require-git', '--hidden', '--glob', '!.git', options.caseSensitive ? '--case-sensitive' : '--ignore-case'];
  if (options.glob) args.push('--glob', options.glob);
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
      matches.push({ path: d.path.text.replace(/^\.\//, ''), line: d.line_number, text: clip(d.lines.text ?? '') });
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
