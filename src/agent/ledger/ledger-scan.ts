/**
 * What the work ledger reads in words rather than tool calls: error lines in the model's text (a
 * failing test it read in a log) and in the user's messages (an error they pasted), and the steps of a
 * markdown checklist the model wrote instead of calling `update_plan`. By pattern, kept short; only
 * lines that look like the output of a compiler, a test runner or a runtime, never prose that merely
 * mentions an error. Pure; never throws.
 */
import type { PlanStatus } from './work-ledger';

/** Lines shaped like error output of common tools. */
const ERROR_LINE: readonly RegExp[] = [
  // TypeError: …, AssertionError [ERR_ASSERTION]: …, java.lang.NullPointerException: …
  /\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b(?: \[[^\]]{1,40}\])?: *\S/,
  // error: …, error[E0308]: …, Error: ENOENT…, fatal: not a git repository
  /^(?:error|Error|ERROR|fatal|FATAL)(?:\[[A-Z]?\d+\])?: *\S/,
  // src/a.ts(3,7): error TS2345: … and file.c:12:5: error: …
  /\berror TS\d{3,5}:|:\d+(?::\d+)?: (?:fatal )?error\b/,
  /^npm (?:ERR!|error) \S/,
  // jest FAIL src/x.test.ts, pytest FAILED tests/x.py::test
  /^(?:FAIL|FAILED) \S/,
  /\bpanicked at\b|\bSegmentation fault\b/,
  // mocha "2 failing", "Tests: 1 failed"
  /\b[1-9]\d* (?:failing|failed)\b/,
];

/** At most this many error lines are taken from one message, each at most this long. */
const MAX_ERRORS = 3;
const MAX_CHARS = 200;

/** Error lines in `text`, first ones first (at most three, each clipped). */
export function errorLinesIn(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.slice(0, 100_000).split('\n')) {
    const line = raw
      .replace(/^\s*(?:[>|]\s*)*/, '')
      .replace(/^`+|`+$/g, '')
      .trim();
    if (!line || line.length > 1000 || !ERROR_LINE.some((re) => re.test(line))) continue;
    const clipped = line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS - 1)}…` : line;
    if (!out.includes(clipped)) out.push(clipped);
    if (out.length >= MAX_ERRORS) break;
  }
  return out;
}

const CHECK_LINE = /^\s*(?:[-*+]|\d+[.)])\s+\[([ xX~])\]\s+(.+?)\s*$/;
const MARK: Record<string, PlanStatus> = { ' ': 'open', x: 'done', X: 'done', '~': 'in_progress' };

/** The steps of markdown checklists in `text` ("- [x] port the lexer"); fewer than two lines is no checklist. */
export function checklistIn(text: string): Array<{ text: string; status: PlanStatus }> {
  const items: Array<{ text: string; status: PlanStatus }> = [];
  for (const line of text.slice(0, 100_000).split('\n')) {
    const m = CHECK_LINE.exec(line);
    if (!m) continue;
    const step = m[2]
      .replace(/~~(.+?)~~/g, '$1')
      .replace(/\*\*(.+?)\*\*/g, '$1')
      .trim();
    if (step && step.length <= 300) items.push({ text: step, status: MARK[m[1]] });
  }
  return items.length >= 2 ? items.slice(0, 50) : [];
}
