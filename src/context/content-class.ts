/**
 * Content classes for estimate errors: our token estimate errs differently on different text (the
 * byte floor over-reads prose and runs of one character, the tokenizer is exact on code, JSON and
 * base64). Classified cheaply from a sample of the text's characters. Pure; never throws.
 */
import type { Message } from '../providers/types';

export const CONTENT_CLASSES = ['prose', 'code', 'dense', 'cjk', 'repetitive', 'tools'] as const;
/**
 * `prose`: text whose count the byte floor decides (natural language: the floor over-reads it);
 * `code`: text whose count the tokenizer decides (code, JSON, logs, short words and numbers); `dense`: long unbroken runs (base64, hex, minified code); `cjk`: mostly
 * CJK ideographs or kana; `repetitive`: runs of one character or a few repeated ones (rulers, padding);
 * `tools`: tool definitions (their framing on the wire differs from one provider to the next).
 */
export type ContentClass = (typeof CONTENT_CLASSES)[number];

const SAMPLE = 4096;

/** The class of a text; `floorDominated`: its count is the byte floor rather than the tokenizer's figure. */
export function contentClass(text: string, floorDominated: boolean): ContentClass {
  const s = text.length > SAMPLE ? text.slice(0, SAMPLE / 2) + text.slice(-SAMPLE / 2) : text;
  if (s.length < 64) return floorDominated ? 'prose' : 'code';
  let cjk = 0;
  let space = 0;
  let repeats = 0;
  const distinct = new Set<string>();
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    if ((code >= 0x3040 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x9fff) || (code >= 0xac00 && code <= 0xd7af)) cjk++;
    if (ch === ' ' || ch === '\n' || ch === '\t') space++;
    if (i > 0 && ch === s[i - 1]) repeats++;
    distinct.add(ch);
  }
  if (repeats / s.length > 0.5 || distinct.size <= 4) return 'repetitive';
  if (cjk / s.length > 0.3) return 'cjk';
  if (space / s.length < 0.02) return 'dense';
  return floorDominated ? 'prose' : 'code';
}

/** The class of a message's text (a message without text is `prose` or `code` by `floorDominated`). */
export function messageClass(message: Message, floorDominated: boolean): ContentClass {
  let text = '';
  for (const p of message.content) {
    if (p.type === 'text' || p.type === 'reasoning') text += p.text;
    else if (p.type === 'toolCall') text += p.rawArguments ?? JSON.stringify(p.arguments ?? {});
    if (text.length > SAMPLE * 4) break;
  }
  return contentClass(text, floorDominated);
}
