/**
 * Re-hydration after compaction: the current content of the files the session changed most
 * recently, within a token budget, so the model does not have to read its own work again. A file too
 * large for what is left of the budget is given as an outline (its size and declaration lines with
 * their numbers). Files are read at compaction time: this is their content now, not as first written.
 * Never throws (an unreadable file is named as such).
 */
import { byteEstimate } from '../../context/utf8';
import { SecretFileError } from '../../tools/secret-files';

export const REHYDRATION_TITLE = 'Current content of the files changed most recently (read at this compaction; newest first):';

/** Declaration-like lines kept in an outline (most languages' top-level forms). */
const DECLARATION =
  /^\s*(export\s|public\s|private\s|protected\s|async\s|function\s|class\s|interface\s|type\s|enum\s|const\s|let\s|def\s|fn\s|pub\s|func\s|struct\s|impl\s|module\s|package\s|#{1,3}\s)/;
const MAX_OUTLINE_LINES = 40;

export interface RehydrationOptions {
  /** Paths, most recently changed first. */
  paths: readonly string[];
  read(path: string): Promise<string>;
  budgetTokens: number;
  /** At most this many files (default 5). */
  maxFiles?: number;
}

const cost = (text: string) => byteEstimate(Buffer.byteLength(text, 'utf8')) + 8;

/** The block's text, or undefined when there is nothing to show within the budget. */
export async function rehydrationBlock(options: RehydrationOptions): Promise<string | undefined> {
  let left = options.budgetTokens - cost(REHYDRATION_TITLE);
  const parts: string[] = [];
  for (const path of options.paths.slice(0, options.maxFiles ?? 5)) {
    if (left <= 0) break;
    let content: string;
    try {
      content = await options.read(path);
    } catch (err) {
      // A secret-looking file is not re-read into the context, even one the session changed.
      const gone =
        err instanceof SecretFileError
          ? `--- ${path}: not shown (${err.reason}); read_file asks the user for it`
          : `--- ${path}: could not be read now (deleted or moved?)`;
      if (cost(gone) <= left) {
        parts.push(gone);
        left -= cost(gone);
      }
      continue;
    }
    const lines = content.split('\n');
    const whole = `--- ${path} (${lines.length} lines)\n${content}`;
    if (cost(whole) <= left && cost(whole) <= options.budgetTokens / 2) {
      parts.push(whole);
      left -= cost(whole);
      continue;
    }
    const decl = lines
      .flatMap((l, i) => (DECLARATION.test(l) ? [`${i + 1}: ${l.trimEnd().slice(0, 160)}`] : []))
      .slice(0, MAX_OUTLINE_LINES);
    let outline = `--- ${path} (${lines.length} lines; outline only, read_file for the rest)\n${decl.join('\n')}`;
    while (cost(outline) > left && decl.length > 0) {
      decl.pop();
      outline = `--- ${path} (${lines.length} lines; outline only, read_file for the rest)\n${decl.join('\n')}`;
    }
    if (cost(outline) <= left) {
      parts.push(outline);
      left -= cost(outline);
    }
  }
  return parts.length ? [REHYDRATION_TITLE, ...parts].join('\n') : undefined;
}
