/**
 * The one paging engine behind every `ResultPort`: a page is computed from a `ResultSource`, which
 * reads byte ranges of one stored result (a file, a database value, a buffer). A byte page reads only
 * itself plus a few boundary bytes; a grep page reads the whole result and runs the model's pattern in
 * the pattern worker under one budget for the whole call.
 */
import { PATTERN_TIMEOUT_MS, PatternBudget, runPatternJob } from './pattern-runner';
import type { ResultPage, ResultPageOptions } from './ports';
import { grepResult, pageFromWindow, pageWindow, startGrep } from './result-paging';

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

/** How much of a result one grep step reads (whole lines; a longer line is read whole). */
export const GREP_CHUNK_BYTES = 4 * 1024 * 1024;

/** How a grep page runs: its stop signal, its budget (all chunks together) and its chunk size. */
export interface PageRun {
  signal?: AbortSignal;
  timeoutMs?: number;
  chunkBytes?: number;
}

/**
 * One page of `source` with the semantics of `pageBuffer`. A byte page reads only its window; a grep
 * reads the result in chunks of whole lines (`chunkBytes`), each grepped in the pattern worker, so
 * memory stays bounded by a chunk whatever the result's size. All chunks share one budget of
 * `timeoutMs`: a catastrophic pattern, or a slow one over many chunks, rejects with a message when it
 * runs out instead of freezing the host or running chunk after chunk.
 */
export async function pageSource(source: ResultSource, options: ResultPageOptions, run: PageRun = {}): Promise<ResultPage> {
  const { timeoutMs = PATTERN_TIMEOUT_MS, chunkBytes = GREP_CHUNK_BYTES, signal } = run;
  const { toolName, totalBytes } = source;
  if (!options.grep) {
    const { start, end } = pageWindow(totalBytes, options);
    return pageFromWindow(await source.read(start, end), start, totalBytes, options, toolName);
  }
  const budget = new PatternBudget(timeoutMs);
  let scan = startGrep();
  let carry: Uint8Array = new Uint8Array(0);
  let pos = 0;
  for (;;) {
    const next = Math.min(totalBytes, pos + chunkBytes);
    const read = await source.read(pos, next);
    pos = next;
    const bytes = carry.length ? Buffer.concat([carry, read]) : read;
    const last = pos >= totalBytes;
    const cut = last ? bytes.length : bytes.lastIndexOf(0x0a) + 1;
    if (cut === 0 && !last) {
      carry = bytes; // no line ends in this chunk yet: read on
      continue;
    }
    carry = bytes.slice(cut);
    scan = await runPatternJob(
      { type: 'grep-chunk', content: bytes.subarray(0, cut), options, scan, last },
      { budget, signal, what: `The regular expression /${options.grep}/` },
    );
    if (last) return grepResult(scan, totalBytes, options, toolName);
  }
}
