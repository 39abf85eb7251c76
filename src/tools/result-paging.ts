/**
 * Reference semantics of `ResultPort.page`, shared by every result store: byte-offset paging that
 * never splits a UTF-8 character, and grep paging over matching lines.
 */
import type { ResultPage, ResultPageOptions } from './ports';
import { searchRegex } from './search-regex';

/** Longest line shown in a grep page. */
export const MAX_GREP_LINE = 500;

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * One page of `content` (UTF-8 bytes).
 * - Without grep: bytes [offset, offset+limit), moved to character boundaries; `nextOffset` is the
 *   byte where the next page starts.
 * - With grep (a regex, case-insensitive; searched literally if invalid): matching lines as
 *   `<line number>: <text>`, starting at the `offset`-th match, until `limit` bytes of text (at least
 *   one line); `nextOffset` is the index of the next match and `totalMatches` counts all of them.
 */
export function pageBuffer(content: Uint8Array, options: ResultPageOptions, toolName?: string): ResultPage {
  const totalBytes = content.length;
  const limit = Math.max(1, Math.floor(options.limit));
  const offset = Math.max(0, Math.floor(options.offset));
  if (options.grep) return grepPage(content, options.grep, offset, limit, toolName);
  let start = Math.min(offset, totalBytes);
  while (start < totalBytes && isContinuation(content[start])) start++;
  let end = Math.min(totalBytes, start + limit);
  while (end > start && end < totalBytes && isContinuation(content[end])) end--;
  if (end === start && start < totalBytes) {
    end = start + 1;
    while (end < totalBytes && isContinuation(content[end])) end++;
  }
  const text = Buffer.from(content.buffer, content.byteOffset + start, end - start).toString('utf8');
  return { toolName, totalBytes, text, offset: start, nextOffset: end < totalBytes ? end : undefined };
}

function grepPage(content: Uint8Array, grep: string, offset: number, limit: number, toolName?: string): ResultPage {
  const re = searchRegex(grep, false);
  // One global scan finds candidate lines (a per-line match is always also a match of the whole text,
  // so no matching line is skipped); each candidate line is then re-checked on its own, which keeps
  // per-line semantics. Far cheaper on a 10 MB result than testing every line.
  const scan = new RegExp(re.source, re.flags.replace(/[gmy]/g, '') + 'gm');
  const text = Buffer.from(content.buffer, content.byteOffset, content.length).toString('utf8');
  const out: string[] = [];
  let bytes = 0;
  let matchIndex = 0;
  let nextOffset: number | undefined;
  let lineNo = 1;
  let counted = 0; // text position up to which newlines are counted into lineNo
  let pos = 0;
  while (pos <= text.length) {
    scan.lastIndex = pos;
    const m = scan.exec(text);
    if (!m) break;
    // (lastIndexOf clamps a negative start to 0, which would look at the first character.)
    const lineStart = m.index === 0 ? 0 : text.lastIndexOf('\n', m.index - 1) + 1;
    const nl = text.indexOf('\n', m.index);
    const lineEnd = nl < 0 ? text.length : nl;
    for (let i = text.indexOf('\n', counted); i >= 0 && i < lineStart; i = text.indexOf('\n', i + 1)) lineNo++;
    counted = lineStart;
    const line = text.slice(lineStart, lineEnd);
    if (re.test(line)) {
      if (matchIndex >= offset && nextOffset === undefined) {
        const shown = line.length > MAX_GREP_LINE ? `${line.slice(0, MAX_GREP_LINE)}… [${line.length - MAX_GREP_LINE} more chars]` : line;
        const entry = `${lineNo}: ${shown.replace(/\r$/, '')}`;
        const size = Buffer.byteLength(entry) + 1;
        if (out.length > 0 && bytes + size > limit) nextOffset = matchIndex;
        else {
          out.push(entry);
          bytes += size;
        }
      }
      matchIndex++;
    }
    if (nl < 0) break;
    pos = nl + 1;
  }
  return { toolName, totalBytes: content.length, text: out.join('\n'), offset, nextOffset, totalMatches: matchIndex };
}
