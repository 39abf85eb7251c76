/** The text side of @-mentions in the prompt box: finding the `@word` being typed and the mentions written. Pure (no DOM), unit-tested. */
import type { Mention, MentionChip } from '../src/protocol/messages';

/** The `@word` being typed just before the caret, or undefined. */
export function mentionQuery(text: string, caret: number): { start: number; query: string } | undefined {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[2].length - 1, query: m[2] } : undefined;
}

/** The mention a sent prompt's chip stands for, so an edited prompt keeps it (a range's text is not kept). */
export function chipMention(chip: MentionChip): Mention | undefined {
  if (chip.problem) return undefined;
  if ((chip.kind === 'file' || chip.kind === 'folder') && chip.path) return { kind: chip.kind, path: chip.path };
  if (chip.kind === 'selection' || chip.kind === 'problems') return { kind: chip.kind };
  return undefined;
}

/** Whether `@label` is written in `text` as a word of its own. */
export function written(text: string, label: string): boolean {
  const token = `@${label}`;
  for (let i = text.indexOf(token); i !== -1; i = text.indexOf(token, i + 1)) {
    const before = i === 0 ? ' ' : text[i - 1];
    const after = text[i + token.length] ?? ' ';
    if (/\s/.test(before) && /[\s.,;:!?)]/.test(after)) return true;
  }
  return false;
}
