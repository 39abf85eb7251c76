/**
 * Lines added and removed between two texts: the one count the approval card, "Changes in this turn"
 * and a checkpoint show for the same edit. jsdiff's line diff, so a moved line counts as a change.
 * Pure.
 */
import { diffLines } from 'diff';

/** Past this many changed lines the exact count is not worth the time: every line of both sides counts. */
const MAX_EDIT_LINES = 10_000;

/** Lines added and removed from `before` (absent: a new file) to `after`; a missing final newline is no change. */
export function lineChanges(before: string | undefined, after: string): { added: number; removed: number } {
  const old = before ?? '';
  const changes = diffLines(old, after, { ignoreNewlineAtEof: true, maxEditLength: MAX_EDIT_LINES });
  if (!changes) return { added: lineCount(after), removed: lineCount(old) };
  let added = 0;
  let removed = 0;
  for (const c of changes) {
    if (c.added) added += c.count;
    else if (c.removed) removed += c.count;
  }
  return { added, removed };
}

function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}
