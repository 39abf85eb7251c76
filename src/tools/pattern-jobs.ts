/**
 * The work that evaluates model-supplied patterns (globs, regular expressions, and the repository's
 * .gitignore rules met on the way), as plain data in and out so it can run in the pattern worker.
 * A regex such as `(a+)+$` or a glob such as `**a**a**a…b` can backtrack for minutes; in the worker
 * the call's budget stops it (`pattern-runner.ts`) and the extension host's thread never runs it.
 */
import { walkFiles } from './file-walk';
import { globMatcher } from './glob';
import type { ResultPageOptions, TextMatch } from './ports';
import { grepChunk, type GrepScan } from './result-paging';
import { searchWithFallback } from './fallback-search';

export type PatternJob =
  | { type: 'grep-chunk'; content: Uint8Array; options: ResultPageOptions; scan: GrepScan; last: boolean }
  | { type: 'list-files'; root: string; realRoot: string; glob: string; respectGitignore: boolean; limit: number }
  | {
      type: 'search-files';
      root: string;
      realRoot: string;
      pattern: string;
      glob?: string;
      maxResults: number;
      caseSensitive?: boolean;
      /** The user's exceptions to the secret-file policy (globs). */
      secretFilesAllow?: readonly string[];
    };

export interface PatternJobResults {
  'grep-chunk': GrepScan;
  'list-files': { files: string[]; truncated: boolean };
  'search-files': { matches: TextMatch[]; truncated: boolean };
}

export type PatternJobResult<J extends PatternJob> = PatternJobResults[J['type']];

/** Runs one job in the calling thread. Only the pattern worker (and tests of the semantics) call it. */
export async function runJobHere(job: PatternJob): Promise<PatternJobResults[PatternJob['type']]> {
  switch (job.type) {
    case 'grep-chunk':
      return grepChunk(job.content, job.options, job.scan, job.last);
    case 'list-files': {
      const matches = globMatcher(job.glob);
      const files: string[] = [];
      for await (const rel of walkFiles(job.root, { respectGitignore: job.respectGitignore, realRoot: job.realRoot })) {
        if (!matches(rel)) continue;
        if (files.length >= job.limit) return { files, truncated: true };
        files.push(rel);
      }
      return { files, truncated: false };
    }
    case 'search-files':
      return searchWithFallback(
        job.root,
        job.realRoot,
        job.pattern,
        { glob: job.glob, maxResults: job.maxResults, caseSensitive: job.caseSensitive },
        job.secretFilesAllow,
      );
  }
}
