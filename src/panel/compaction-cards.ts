/**
 * The compaction part of the chat: the "Compacting…" row while a
 * pass runs, the card when it is done, the divider above which nothing is in the model's context any
 * more, and which card's Undo can work. The rule for Undo mirrors the store's: only the newest
 * compaction can be undone, and not after a restore or an undo, nor while a turn or another compaction
 * runs, nor when the session is not stored. Pure (no vscode); never throws.
 */
import type { AgentEvent, CompactionChange } from '../agent/events';
import type { ChatItem, ChatItemOf, ChatOp, ReceiptKind } from '../protocol/view-models';
import { keptTurns, type StoredCompaction } from '../context/compaction';
import { costOf } from '../context/cost';
import { pricesFor } from '../context/models';
import { compactionCard, DIVIDER_TEXT, storedCompactionCard } from './compaction-card';

import type { StoredHistory } from './stored-history';

/** What the cards need from the presenter. */
export interface CardHost {
  op(op: ChatOp): void;
  get(id: string): ChatItem | undefined;
  readonly items: readonly ChatItem[];
  nextId(prefix: string): string;
  /** Whether a turn runs (Undo waits for it). */
  readonly running: boolean;
}

/** A reopened session's stored compactions (oldest first) and whether the newest can still be undone. */
export interface CompactionHistory {
  compactions: readonly StoredCompaction[];
  newestUndoable: boolean;
  /** The stored transcript to show instead of the context view (`stored-history.ts`). */
  stored?: StoredHistory;
  /** The session's pins: a receipt's missing item pinned already says so. */
  pins?: readonly string[];
}

/** What a stored compaction's summary cost in US dollars, at its summarizer's prices (undefined: unknown). */
function summaryCost(c: StoredCompaction): number | undefined {
  const prices = c.view?.model ? pricesFor(c.view.model) : undefined;
  return c.view?.cost && prices ? costOf(c.view.cost, prices) : undefined;
}

export class CompactionCards {
  private rowId: string | undefined;
  private change: CompactionChange | undefined;
  /**
   * The newest card and its divider, while its Undo can still work; `reopened`: the card was rebuilt
   * from the store (the chat shows only the compacted context, so an undo must show what came back).
   */
  private newest: { card: string; divider: string | undefined; reopened?: boolean } | undefined;
  /** Whether the session's compactions are stored (undo needs them). */
  private storedUndo = false;

  constructor(private readonly host: CardHost) {}

  /** True while a pass runs (the row shows). */
  get compacting(): boolean {
    return this.rowId !== undefined;
  }

  /** Whether compactions of this session can be undone at all (stored, writable). */
  setUndoAvailable(available: boolean): void {
    this.storedUndo = available;
    this.refreshUndo();
  }

  started(e: Extract<AgentEvent, { type: 'compaction_start' }>): void {
    this.rowId ??= this.host.nextId('k');
    const what = e.summarizing > 0 ? ` (summarizing ${e.summarizing} ${e.summarizing === 1 ? 'message' : 'messages'})` : '';
    this.put({ kind: 'compacting', id: this.rowId, text: `Compacting…${what}` });
    this.refreshUndo();
  }

  ended(e: Extract<AgentEvent, { type: 'compaction_end' }>): void {
    if (this.rowId) this.host.op({ op: 'remove', id: this.rowId });
    this.rowId = undefined;
    this.change = e.outcome === 'done' ? e.change : undefined;
    if (e.outcome === 'cancelled')
      this.host.op({
        op: 'append',
        item: { kind: 'notice', id: this.host.nextId('n'), level: 'info', text: 'Compaction cancelled. The context is exactly as it was.' },
      });
    this.refreshUndo();
  }

  /** A compaction finished (`cost`: its summary in US dollars, when known): its card, and the divider above the turns it kept verbatim. */
  finished(e: Extract<AgentEvent, { type: 'compaction' }>, cost?: number): void {
    const change = this.change;
    this.change = undefined;
    this.retireNewest();
    const card = compactionCard(this.host.nextId('c'), e.report, change, cost);
    const divider = change ? this.insertDivider(change) : undefined;
    this.newest = { card: card.id, divider };
    this.host.op({ op: 'append', item: { ...card, canUndo: this.undoable() } });
  }

  /**
   * A reopened session's compactions as cards, oldest first, with the view each one stored (and what
   * its summary cost, when known). The newest keeps Undo when the store says it can still work. Call
   * after `reset`; the caller puts the cards above the session's first message.
   */
  reopened(history: CompactionHistory): ChatItem[] {
    const cards = history.compactions.map((c) => storedCompactionCard(`h${c.id}`, c, summaryCost(c), history.pins));
    const newest = cards[cards.length - 1];
    if (newest && history.newestUndoable) {
      // Over the stored transcript the turns an undo brings back are shown already: only the divider goes.
      this.newest = history.stored
        ? { card: newest.id, divider: `${newest.id}d` }
        : { card: newest.id, divider: undefined, reopened: true };
      cards[cards.length - 1] = { ...newest, canUndo: this.undoable() };
    }
    return cards;
  }

  /**
   * The newest compaction was undone: its card says so and its divider goes (those turns are back in
   * context). False when the chat does not show those turns (a reopened session): the caller shows them.
   */
  undone(): boolean {
    const newest = this.newest;
    if (!newest) return false;
    this.newest = undefined;
    if (newest.divider) this.host.op({ op: 'remove', id: newest.divider });
    const card = this.host.get(newest.card);
    if (card?.kind === 'compaction') this.put({ ...card, canUndo: false, undone: true });
    return !newest.reopened;
  }

  /** The context was replaced another way (restore): no card can be undone any more. */
  retireNewest(): void {
    const newest = this.newest;
    this.newest = undefined;
    const card = newest && this.host.get(newest.card);
    if (card?.kind === 'compaction' && card.canUndo) this.put({ ...card, canUndo: false });
  }

  /** Re-renders the newest card when whether its Undo can work changed (a turn started or ended). */
  refreshUndo(): void {
    const card = this.newest && this.host.get(this.newest.card);
    if (card?.kind !== 'compaction') return;
    const can = this.undoable();
    if ((card.canUndo ?? false) !== can) this.put({ ...card, canUndo: can });
  }

  /** Missing item `index` of the receipt on card `id` (undefined: no such card or item). */
  receiptItem(id: string, index: number): { kind: ReceiptKind; text: string } | undefined {
    const card = this.host.get(id);
    const item = card?.kind === 'compaction' ? card.receipt?.missing[index] : undefined;
    return item && { kind: item.kind, text: item.text };
  }

  /** Missing item `index` of the receipt on card `id` was pinned: the card says so. */
  receiptPinned(id: string, index: number): void {
    const card = this.host.get(id);
    if (card?.kind !== 'compaction' || !card.receipt?.missing[index]) return;
    const missing = card.receipt.missing.map((m, i) => (i === index ? { ...m, pinned: true } : m));
    this.put({ ...card, receipt: { ...card.receipt, missing } });
  }

  /** Forgets everything (another session). */
  reset(): void {
    this.rowId = undefined;
    this.change = undefined;
    this.newest = undefined;
  }

  private undoable(): boolean {
    return this.storedUndo && !this.host.running && !this.compacting && this.newest !== undefined;
  }

  /**
   * Before the first of the turns the pass kept verbatim (the k-th last user message shown, k the
   * turns kept); at the end when it kept none. Returns the divider's id.
   */
  private insertDivider(change: CompactionChange): string {
    const id = this.host.nextId('d');
    const item: ChatItemOf<'divider'> = { kind: 'divider', id, text: DIVIDER_TEXT };
    const kept = keptTurns(change.after);
    const users = this.host.items.filter((i) => i.kind === 'user');
    const first = kept > 0 ? users[users.length - kept] : undefined;
    this.host.op(first ? { op: 'insert', item, before: first.id } : { op: 'append', item });
    return id;
  }

  private put(item: ChatItem): void {
    this.host.op({ op: this.host.get(item.id) ? 'update' : 'append', item });
  }
}
