/**
 * How a search pattern from the model becomes a JS RegExp, and how a matching line is shown. Pure;
 * evaluate the regex only in the pattern worker (`pattern-runner.ts`): it may backtrack for minutes.
 */
import type { TextMatch } from './ports';

/** Longest line text kept in a match, so one minified line cannot flood the result. */
export const MAX_MATCH_TEXT = 300;

export interface SearchOutcome {
  matches: TextMatch[];
  truncated: boolean;
}

/** A matching line without its line break, cut at `MAX_MATCH_TEXT` characters (and saying so). */
export function clipMatchText(text: string): string {
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
