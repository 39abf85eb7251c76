/**
 * The one paging engine behind every `ResultPort`: a page is computed from a `ResultSource`, which
 * reads byte ranges of one stored result (a file, a database value, a buffer). A byte page reads only
 * itself plus a few boundary bytes; a grep page reads the whole result and runs the model's pattern in
 * the pattern worker under a time bound.
 */
import { PATTERN_TIMEOUT_MS, runPatternJob } from './pattern-runner';
import type { ResultPage, ResultPageOptions } from './ports';
import { pageFromWindow, pageWindow } from './result-paging';

/** One stored result, read by range. */
export interface ResultSource {
  /** The tool that produced the result, shown in page headers. */
  readonly toolName?: string;
  /** Byte size of the whole result. */
  readonly totalBytes: number;
  /** Bytes [start, end) of the result (0 ≤ start ≤ end ≤ totalBytes). May reject (e.g. a missing file). */
  read(start: number, end: number): Promise<Uint8Array>;
}

/** A source over a result held in memory. */
export function bufferSource(content: Uint8Array, toolName?: string): ResultSource {
  return { toolName, totalBytes: content.length, read: (start, end) => Promise.resolve(content.subarray(start, end)) };
}

/**
 * One page of `source` with the semantics of `pageBuffer`. A catastrophic grep pattern rejects with a
 * message (after `timeoutMs`) instead of freezing the host.
 */
export async function pageSource(source: ResultSource, options: ResultPageOptions, timeoutMs = PATTERN_TIMEOUT_MS): Promise<ResultPage> {
  const { toolName, totalBytes } = source;
  if (!options.grep) {
    const { start, end } = pageWindow(totalBytes, options);
    return pageFromWindow(await source.read(start, end), start, totalBytes, options, toolName);
  }
  const content = await source.read(0, totalBytes);
  return await runPatternJob(
    { type: 'grep-page', content, options, toolName },
    { timeoutMs, what: `The regular expression /${options.grep}/` },
  );
}
