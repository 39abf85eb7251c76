/**
 * What the loop does when the provider refuses an image of the request: the image leaves the context
 * view and a short note takes its place, so the request can go again and every later turn does not
 * fail on the same image. The transcript keeps the message as sent; a reopened session whose stored
 * image is refused again is mended the same way at its first request. Pure.
 */
import { singleLine } from '../common/single-line';
import type { ImagePart, Message, TextPart } from '../providers/types';

/** Longest part of the provider's reason quoted in the note (the text is the server's, so untrusted). */
const REASON_CHARS = 200;

export function refusedImageNote(reason: string): string {
  const said = singleLine(reason).slice(0, REASON_CHARS);
  return `[An image was here. The provider could not read it ("${said}"), so it was left out of the context.]`;
}

const hasImage = (m: Message) => m.role !== 'assistant' && m.content.some((p) => p.type === 'image');

/**
 * The view with refused images replaced by a note: the newest message that holds an image first
 * (`all` false: most often the prompt just sent), or every image left (`all` true: the provider refused
 * again, so the culprit is older). `replaced` counts the images taken out; 0 when none was left.
 */
export function withoutRefusedImages(
  messages: readonly Message[],
  reason: string,
  all: boolean,
): { messages: Message[]; replaced: number } {
  let replaced = 0;
  let newest = -1;
  for (let i = messages.length - 1; i >= 0 && newest < 0; i--) if (hasImage(messages[i])) newest = i;
  const note: TextPart = { type: 'text', text: refusedImageNote(reason) };
  const out = messages.map((m, i) => {
    if (m.role === 'assistant' || !hasImage(m) || (!all && i !== newest)) return m;
    const content = m.content.map((p: TextPart | ImagePart) => (p.type === 'image' ? (replaced++, note) : p));
    return { ...m, content };
  });
  return { messages: out, replaced };
}
