/**
 * Reference semantics of `ResultPort.page`, pure: byte-offset paging that never splits a UTF-8
 * character (computed from a small window of the result, so a store reads only the page), and grep
 * paging over matching lines. `result-port.ts` runs them over any `ResultSource`.
 */
import type { ResultPage, ResultPageOptions } from './ports';
import { searchRegex } from './search-regex';

/** Longest line shown in a grep page. */
export const MAX_GREP_LINE = 500;

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** Bytes a byte page may look at beyond its limit: up to 3 continuation bytes either side of a character. */
const BOUNDARY_SLACK = 4;

/**
 * The bytes a page of `limit` bytes from `offset` needs to see, [start, end) of a result of `totalBytes`:
 * the page itself plus a few bytes to move its ends to character boundaries. A store reads only these.
 */
export function pageWindow(totalBytes: number, options: ResultPageOptions): { start: number; end: number } {
  const start = Math.min(Math.max(0, Math.floor(options.offset)), totalBytes);
  const limit = Math.max(1, Math.floor(options.limit));
  return { start, end: Math.min(totalBytes, start + limit + BOUNDARY_SLACK) };
}

/**
 * A byte page (no grep) from `window`, the bytes [`windowStart`, …) of a result of `totalBytes` that
 * `pageWindow` asked for: bytes [offset, offset+limit), moved to character boundaries; `nextOffset`
 * is the byte where the next page starts.
 */
export function pageFromWindow(
  window: Uint8Array,
  windowStart: number,
  totalBytes: number,
  options: ResultPageOptions,
  toolName?: string,
): ResultPage {
  const at = (i: number) => window[i - windowStart];
  const limit = Math.max(1, Math.floor(options.limit));
  let start = Math.min(Math.max(0, Math.floor(options.offset)), totalBytes);
  while (start < totalBytes && isContinuation(at(start))) start++;
  let end = Math.min(totalBytes, start + limit);
  while (end > start && end < totalBytes && isContinuation(at(end))) end--;
  if (end === start && start < totalBytes) {
    end = start + 1;
    while (end < totalBytes && isContinuation(at(end))) end++;
  }
  const text = Buffer.from(window.buffer, window.byteOffset + start - windowStart, end - start).toString('utf8');
  return { toolName, totalBytes, text, offset: start, nextOffset: end < totalBytes ? end : undefined };
}

/**
 * One page of `content` (UTF-8 bytes), the whole result in memory.
 * - Without grep: `pageFromWindow` over all of it.
 * - With grep (a regex, case-insensitive; searched literally if invalid): matching lines as
 *   `<line number>: <text>`, starting at the `offset`-th match, until `limit` bytes of text (at least
 *   one line); `nextOffset` is the index of the next match and `totalMatches` counts all of them.
 */
export function pageBuffer(content: Uint8Array, options: ResultPageOptions, toolName?: string): ResultPage {
  if (!options.grep) return pageFromWindow(content, 0, content.length, options, toolName);
  const scan = grepChunk(content, options, startGrep(), true);
  return grepResult(scan, content.length, options, toolName);
}

/** Where a grep over a result stands between chunks (plain data: it crosses into the pattern worker). */
export interface GrepScan {
  /** Line number of the first line of the next chunk. */
  lineNo: number;
  /** Matching lines seen so far. */
  matches: number;
  /** The page's lines so far, and their bytes. */
  lines: string[];
  bytes: number;
  /** Set once the page is full: the index of the first match that did not fit. */
  nextOffset?: number;
}

export function startGrep(): GrepScan {
  return { lineNo: 1, matches: 0, lines: [], bytes: 0 };
}

/** The page a finished scan makes (the semantics of `pageBuffer` with grep). */
export function grepResult(scan: GrepScan, totalBytes: number, options: ResultPageOptions, toolName?: string): ResultPage {
  const offset = Math.max(0, Math.floor(options.offset));
  return { toolName, totalBytes, text: scan.lines.join('\n'), offset, nextOffset: scan.nextOffset, totalMatches: scan.matches };
}

/**
 * Greps one chunk of a result: whole lines (a chunk that is not the `last` ends with a newline), so a
 * result is grepped chunk by chunk with the same answer as in one piece. Returns the scan after it.
 */
export function grepChunk(content: Uint8Array, options: ResultPageOptions, from: GrepScan, last: boolean): GrepScan {
  const re = searchRegex(options.grep ?? '', false);
  const offset = Math.max(0, Math.floor(options.offset));
  const limit = Math.max(1, Math.floor(options.limit));
  // One global scan finds candidate lines (a per-line match is always also a match of the whole text,
  // so no matching line is skipped); each candidate line is then re-checked on its own, which keeps
  // per-line semantics. Far cheaper on a 10 MB result than testing every line.
  const scan = new RegExp(re.source, re.flags.replace(/[gmy]/g, '') + 'gm');
  const text = Buffer.from(content.buffer, content.byteOffset, content.length).toString('utf8');
  const out = [...from.lines];
  let { bytes, matches, nextOffset, lineNo } = from;
  let counted = 0; // text position up to which newlines are counted into lineNo
  let pos = 0;
  // The empty "line" after a chunk's final newline is the next chunk's first line, not one of ours.
  const end = last ? text.length : text.length - 1;
  while (pos <= end) {
    scan.lastIndex = pos;
    const m = scan.exec(text);
    if (!m || m.index > end) break;
    // (lastIndexOf clamps a negative start to 0, which would look at the first character.)
    const lineStart = m.index === 0 ? 0 : text.lastIndexOf('\n', m.index - 1) + 1;
    const nl = text.indexOf('\n', m.index);
    const lineEnd = nl < 0 ? text.length : nl;
    for (let i = text.indexOf('\n', counted); i >= 0 && i < lineStart; i = text.indexOf('\n', i + 1)) lineNo++;
    counted = lineStart;
    const line = text.slice(lineStart, lineEnd);
    if (re.test(line)) {
      if (matches >= offset && nextOffset === undefined) {
        const shown = line.length > MAX_GREP_LINE ? `${line.slice(0, MAX_GREP_LINE)}… [${line.length - MAX_GREP_LINE} more chars]` : line;
        const entry = `${lineNo}: ${shown.replace(/\r$/, '')}`;
        const size = Buffer.byteLength(entry) + 1;
        if (out.length > 0 && bytes + size > limit) nextOffset = matches;
        else {
          out.push(entry);
          bytes += size;
        }
      }
      matches++;
    }
    if (nl < 0) break;
    pos = nl + 1;
  }
  for (let i = text.indexOf('\n', counted); i >= 0; i = text.indexOf('\n', i + 1)) lineNo++;
  return { lineNo, matches, lines: out, bytes, nextOffset };
}
