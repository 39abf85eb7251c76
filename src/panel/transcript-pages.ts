/**
 * Which messages make one page of the panel's transcript: opening a long session shows only the
 * newest page, and each `transcript/older` adds the page before the first one shown. Pure.
 */
import type { Message } from '../providers/types';
import type { ChatItem } from '../protocol/view-models';
import { messagesToItems } from './transcript-items';

/** At most this many messages a page (a page is what the panel renders at once)… */
export const PAGE_MESSAGES = 150;
/** …and at most about this many characters of them (a tool result counts only what its card previews). */
export const PAGE_CHARS = 256 * 1024;
/** A tool result's card shows at most this much of it (`transcript-items.ts` PREVIEW_CHARS). */
const RESULT_CHARS = 2_000;

function chars(m: Message): number {
  let n = 0;
  for (const p of m.content) n += 'text' in p ? p.text.length : p.type === 'toolCall' ? 200 : 100;
  return m.role === 'toolResult' ? Math.min(n, RESULT_CHARS) : n;
}

/**
 * The first index of the page that ends just before `end`: back from `end` until the page holds
 * `maxMessages` messages or `maxChars` characters (at least one message), then further back while it
 * would start with a tool result, so a call and its results are on one page (one card, not a card
 * without its call). 0 when everything before `end` fits.
 */
export function pageStart(messages: readonly Message[], end: number, maxMessages = PAGE_MESSAGES, maxChars = PAGE_CHARS): number {
  let start = end;
  let size = 0;
  while (start > 0 && end - start < maxMessages) {
    size += chars(messages[start - 1]);
    if (size > maxChars && start < end) break;
    start--;
  }
  while (start > 0 && messages[start].role === 'toolResult') start--;
  return start;
}

/** The loaded messages the panel does not show yet, handed out a page at a time, newest first. */
export class OlderPages {
  private messages: readonly Message[] = [];
  /** Messages before this index are not shown yet: the page before the first item shown ends here. */
  private end = 0;
  /** Items above the first message (a reopened session's compaction cards): they come with the oldest page. */
  private head: ChatItem[] = [];

  /**
   * A transcript was loaded: its newest page as items (ids `m<index>` as `messagesToItems` gives them),
   * after `head` when that page is the oldest; the rest waits.
   */
  load(messages: readonly Message[], head: readonly ChatItem[] = []): ChatItem[] {
    // A copy of the list (not of the messages): the session may change its own array later.
    this.messages = [...messages];
    this.end = pageStart(this.messages, this.messages.length);
    this.head = [...head];
    return this.withHead(messagesToItems(this.messages.slice(this.end), '', this.end));
  }

  get hasOlder(): boolean {
    return this.end > 0;
  }

  /** The page before the ones handed out (empty when there is none). */
  next(): ChatItem[] {
    const start = pageStart(this.messages, this.end);
    const items = messagesToItems(this.messages.slice(start, this.end), '', start);
    this.end = start;
    if (!this.end) this.messages = [];
    return this.withHead(items);
  }

  /** `items` after the head when they reach the first message (the head is handed out once). */
  private withHead(items: ChatItem[]): ChatItem[] {
    if (this.end > 0 || !this.head.length) return items;
    const head = this.head;
    this.head = [];
    return [...head, ...items];
  }
}
