/**
 * Text from outside (a file name, a command, a model's plan item, a server's model id) made into one
 * line that cannot start another: every character that ends a line or steers how text is shown is
 * written as a visible escape. Anything that lists such text one entry per line (the work ledger, a
 * quick pick) passes each entry through here, so no entry can forge a line of its own. Pure and
 * browser-safe; idempotent (an escaped text has nothing left to escape).
 */

/**
 * C0 and C1 controls and DEL; the Unicode line and paragraph separators (line ends to a model and to
 * some editors); the bidirectional overrides and isolates (they reorder what is shown, so a name can
 * read differently from what it is).
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` on one line: line breaks as `\n` / `\r`, tabs as `\t`, other controls as `\u001b`-style escapes. */
export function singleLine(text: string): string {
  return text.replace(UNSAFE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `text` for a VS Code quick pick or status bar, where `$(name)` draws an icon: one line, and every
 * `$(` escaped (`\$(`, VS Code's own escape), so a name from a server cannot draw icons or fake a
 * marker such as `$(check)`.
 */
export function withoutIcons(text: string): string {
  return singleLine(text).replace(/\$\(/g, '\\$(');
}
