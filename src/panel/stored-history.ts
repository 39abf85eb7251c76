/**
 * A reopened session's chat from its STORED TRANSCRIPT (the transcript is never
 * replaced; older pages come in on scroll): every stored message, all roles, read from the
 * store a page at a time, newest first, with each compaction's divider and card, each recorded
 * snapshot restore's divider and the last clear's divider where they happened. What the model gets
 * (the context view) is not what this shows. Pure apart from the injected page reader.
 *
 * Placement rule (one home): every mark sits right after a stored message, by seq.
 * - A compaction's card: after its snapshot's `throughSeq` (the last message stored when it ran).
 * - Its divider ("above: no longer in the model's context"): right above the first message it kept
 *   verbatim (after `firstKeptSeq - 1`) when that is above the card, else right above the card.
 * - A snapshot restore: a divider after its snapshot's `throughSeq`. The last clear: a divider after
 *   `markers.after_seq`. A turn's checkpoint: its "Changes in this turn" card after its turn's last message.
 * - A mark goes with the page holding the last message at or before its seq (the oldest page takes
 *   those before every message, the newest those after), never between a tool call and its result
 *   (it moves down past the result). Marks at one place keep time order.
 * Headroom's own summary messages (`origin: 'history'`) are not shown: the card's View summary has it.
 */
import { isHistoryMessage } from '../context/compaction';
import type { TurnChanges } from '../app/checkpoint-record';
import type { Message } from '../providers/types';
import type { ChatItem } from '../protocol/view-models';
import { DIVIDER_TEXT } from './compaction-card';
import { messagesToItems } from './transcript-items';
import { changesItem } from './turn-changes';

/** One page of the stored transcript, oldest first (the store's `transcriptPage` fits). */
export interface StoredPage {
  messages: readonly { seq: number; message: Message }[];
  hasOlder: boolean;
}

/** A stored compaction's place: its id (the card is `h<id>`), its snapshot's `throughSeq`, the first seq it kept. */
export interface CompactionPlace {
  id: string;
  createdAt: number;
  throughSeq: number | null;
  firstKeptSeq: number | null;
}

/** The stored transcript of a reopened session: its newest page, how to read older ones, and its marks. */
export interface StoredHistory {
  first: StoredPage;
  /** The page of messages before `beforeSeq`. */
  read(beforeSeq: number): Promise<StoredPage>;
  compactions: readonly CompactionPlace[];
  restores: readonly { createdAt: number; throughSeq: number }[];
  clear?: { clearedAt: number; afterSeq: number };
  /** The turns' checkpoints, each shown as its "Changes in this turn" card where its turn ended. */
  changes?: readonly { throughSeq: number; createdAt: number; changes: TurnChanges; restored: boolean }[];
}

/** Items shown right after the message with seq `afterSeq`. */
export interface HistoryMark {
  afterSeq: number;
  time: number;
  items: ChatItem[];
}

const divider = (id: string, text = DIVIDER_TEXT): ChatItem => ({ kind: 'divider', id, text });

/** The marks of `history`, with `cards` (ids `h<compaction id>`, as `CompactionCards.reopened` makes them). */
export function historyMarks(history: Omit<StoredHistory, 'first' | 'read'>, cards: readonly ChatItem[]): HistoryMark[] {
  const places = new Map(history.compactions.map((p) => [`h${p.id}`, p]));
  const marks: HistoryMark[] = [];
  for (const card of cards) {
    const p = places.get(card.id);
    const at = p?.throughSeq ?? Number.MAX_SAFE_INTEGER;
    const time = p?.createdAt ?? Number.MAX_SAFE_INTEGER;
    const kept = p?.firstKeptSeq == null ? at : p.firstKeptSeq - 1;
    if (kept < at) marks.push({ afterSeq: kept, time, items: [divider(`${card.id}d`)] }, { afterSeq: at, time, items: [card] });
    else marks.push({ afterSeq: at, time, items: [divider(`${card.id}d`), card] });
  }
  for (const r of history.restores)
    marks.push({
      afterSeq: r.throughSeq,
      time: r.createdAt,
      items: [divider(`hr${r.throughSeq}-${r.createdAt}`, `${DIVIDER_TEXT} · snapshot restored`)],
    });
  for (const c of history.changes ?? []) {
    const item = changesItem(`ch${c.changes.turn}`, c.changes);
    marks.push({ afterSeq: c.throughSeq, time: c.createdAt, items: [c.restored ? { ...item, restored: true } : item] });
  }
  const clear = history.clear;
  if (clear) marks.push({ afterSeq: clear.afterSeq, time: clear.clearedAt, items: [divider('hclear', `${DIVIDER_TEXT} · cleared`)] });
  return marks.sort((a, b) => a.afterSeq - b.afterSeq || a.time - b.time);
}

/**
 * One page as items: its messages (ids `sm<seq>`) with the marks whose seq falls in `[lo, hi)` placed
 * after the last message at or before it (before the first when there is none).
 */
export function pageItems(
  messages: readonly { seq: number; message: Message }[],
  marks: readonly HistoryMark[],
  lo: number,
  hi: number,
): ChatItem[] {
  const shown = messages.filter((m) => !isHistoryMessage(m.message));
  const inserts = new Map<number, ChatItem[]>();
  for (const mark of marks) {
    if (mark.afterSeq < lo || mark.afterSeq >= hi) continue;
    let at = shown.findIndex((m) => m.seq > mark.afterSeq);
    if (at < 0) at = shown.length;
    while (at < shown.length && shown[at].message.role === 'toolResult') at++;
    inserts.set(at, [...(inserts.get(at) ?? []), ...mark.items]);
  }
  const items: ChatItem[] = [];
  const run = (from: number, to: number) => {
    if (to > from)
      items.push(
        ...messagesToItems(
          shown.slice(from, to).map((m) => m.message),
          's',
          shown[from].seq,
        ),
      );
  };
  let from = 0;
  for (let i = 0; i <= shown.length; i++) {
    const extra = inserts.get(i);
    if (!extra) continue;
    run(from, i);
    items.push(...extra);
    from = i;
  }
  run(from, shown.length);
  return items;
}

/** The stored transcript handed out a page at a time, newest first (`OlderPages`' role for a reopened session). */
export class StoredPages {
  /** The seq of the oldest message handed out (the next page ends before it). */
  private before: number;
  private older: boolean;
  private readonly marks: HistoryMark[];
  private reading = false;

  constructor(
    private readonly history: StoredHistory,
    cards: readonly ChatItem[],
  ) {
    this.marks = historyMarks(history, cards);
    this.before = history.first.messages[0]?.seq ?? 0;
    this.older = history.first.hasOlder && history.first.messages.length > 0;
  }

  /** The newest page as items. */
  load(): ChatItem[] {
    const first = this.history.first;
    return pageItems(first.messages, this.marks, this.older ? this.before : Number.MIN_SAFE_INTEGER, Number.POSITIVE_INFINITY);
  }

  get hasOlder(): boolean {
    return this.older;
  }

  /** The page before the ones handed out (empty when there is none, or while another page is read: no page twice). */
  next(): Promise<ChatItem[]> {
    if (!this.older || this.reading) return Promise.resolve([]);
    this.reading = true;
    return this.read().finally(() => (this.reading = false));
  }

  private async read(): Promise<ChatItem[]> {
    const hi = this.before;
    const page = await this.history.read(hi);
    if (!page.messages.length) {
      this.older = false;
      return pageItems([], this.marks, Number.MIN_SAFE_INTEGER, hi);
    }
    this.before = page.messages[0].seq;
    this.older = page.hasOlder;
    return pageItems(page.messages, this.marks, this.older ? this.before : Number.MIN_SAFE_INTEGER, hi);
  }
}
