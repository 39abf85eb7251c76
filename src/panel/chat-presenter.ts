/**
 * Turns the agent loop's events and the context budget into panel messages (a turn's own events through `live-turn.ts`,
 * the compaction cards through `compaction-cards.ts`), and keeps the transcript view model so the
 * host can re-send everything when the webview is shown again. Pure (no vscode): clock and sink injected. `handle` never throws.
 */
import type { AgentEvent, ContextUsage } from '../agent/events';
import type { BudgetViewModel } from '../context/budget';
import type { Message } from '../providers/types';
import { Transcript } from '../protocol/chat-ops';
import { costOf } from '../context/cost';
import type { SpendState } from '../agent/spend-recorder';
import { pricesFor } from '../context/models';
import type { HostToWebview, SnapshotView } from '../protocol/messages';
import type { ChatItem, ChatOp, LedgerView, MeterView, ReceiptKind } from '../protocol/view-models';
import type { ApprovalDecision, ApprovalRequest } from '../tools/ports';
import { DIVIDER_TEXT } from './compaction-card';
import { CompactionCards, type CompactionHistory } from './compaction-cards';
import { MeterExtras, meterFromBudget, meterFromUsage } from './meter-view';
import { LiveTurn, isTurnEvent, type TurnEvent } from './live-turn';
import { messagesToItems } from './transcript-items';
import { StoredPages } from './stored-history';
import { OlderPages } from './transcript-pages';
import { ClearingNotices } from './provider-clearing';

type Source = { budget: BudgetViewModel } | { usage: ContextUsage };

/** The events that are not a turn's own. */
type OtherEvent = Exclude<AgentEvent, TurnEvent>;

/** What the divider under the chat says replaced the context. */
const CONTINUE_REASON = {
  restore: 'snapshot restored',
  undo: 'compaction undone',
  clear: 'context cleared (the chat stays in History)',
} as const;
const CLEAR_DIVIDER = `${DIVIDER_TEXT} · ${CONTINUE_REASON.clear}`;

export class ChatPresenter {
  readonly transcript = new Transcript();
  private running = false;
  private seq = 0;
  private source: Source | undefined;
  private meter: MeterView | null = null;
  private extras: MeterExtras = {};
  private lastModel: string | undefined;
  private ledger: LedgerView | null = null;
  /** Transcript reloads so far: items of a reloaded context get ids of their own (`l<n>m<i>`). */
  private loads = 0;
  private readonly cards: CompactionCards;
  /** The running turn's items (answer, tools, retries, errors). */
  private readonly turn: LiveTurn;
  /** Which tool uses the provider's own clearing took out, as the chat named them. */
  private readonly clearings = new ClearingNotices();
  /** The messages not shown yet, a page at a time (from the store for a reopened session). */
  private older: OlderPages | StoredPages = new OlderPages();

  /** @param emit receives every message for the webview, in order (the host batches them). @param now the clock (epoch ms). */
  constructor(
    private readonly emit: (message: HostToWebview) => void,
    private readonly now: () => number = Date.now,
  ) {
    const transcript = this.transcript;
    const isRunning = () => this.running;
    this.cards = new CompactionCards({
      op: (op) => this.op(op),
      get: (id) => transcript.get(id),
      get items() {
        return transcript.items;
      },
      nextId: (prefix) => this.nextId(prefix),
      get running() {
        return isRunning();
      },
    });
    this.turn = new LiveTurn({
      op: (op) => this.op(op),
      put: (item) => this.put(item),
      get: (id) => transcript.get(id),
      get items() {
        return transcript.items;
      },
      nextId: (prefix) => this.nextId(prefix),
      now: () => this.now(),
      setRunning: (running) => this.setRunning(running),
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** What a `session/snapshot` carries besides the host's static facts. */
  view(): Required<Pick<SnapshotView, 'items' | 'hasOlder' | 'meter' | 'running' | 'compacting' | 'ledger'>> {
    return {
      items: [...this.transcript.items],
      hasOlder: this.older.hasOlder,
      meter: this.meter,
      running: this.running,
      compacting: this.cards.compacting,
      ledger: this.ledger,
    };
  }

  /**
   * Replaces the transcript (a session was opened, started or cleared) with its newest page; the
   * panel asks for older pages as the user scrolls up (`olderPage`). Posts nothing: send a snapshot
   * after. The cost shown is whatever the host last said the session spent (`setSpend`).
   */
  load(messages: readonly Message[], history?: CompactionHistory): void {
    this.cards.reset();
    this.turn.forget();
    this.clearings.forget();
    const cards = history ? this.cards.reopened(history) : []; // without the stored transcript they head the oldest page
    const pages = history?.stored ? new StoredPages(history.stored, cards) : new OlderPages();
    this.older = pages;
    this.transcript.reset(pages instanceof StoredPages ? pages.load() : pages.load(messages, cards));
  }

  /**
   * The context was replaced while the chat stays (a snapshot restored, a compaction undone, a clear): nothing is removed.
   * An undo of the newest compaction shown takes its divider away; otherwise a divider goes under everything and the new
   * context follows (after a clear, none: the model starts from an empty conversation).
   */
  continueWith(messages: readonly Message[], why: 'restore' | 'undo' | 'clear' | 'unclear'): void {
    // The meter's "freed …" was about the context this one replaced.
    if (this.extras.lastCompaction) {
      this.extras = { ...this.extras, lastCompaction: null };
      this.pushMeter();
    }
    if (why === 'undo' && this.cards.undone()) return;
    // An undone clear takes its divider away: what the chat shows above it is the model's context again.
    if (why === 'unclear') {
      const last = this.transcript.items.at(-1);
      if (last?.kind === 'divider' && last.text === CLEAR_DIVIDER) return this.remove(last.id);
      why = 'restore';
    }
    this.continueUnder(messages, `${DIVIDER_TEXT} · ${CONTINUE_REASON[why]}`);
  }

  /** A divider under everything shown (`text`), then the new context (nothing is removed). */
  continueUnder(messages: readonly Message[], text: string): void {
    this.cards.retireNewest();
    const loaded = `l${++this.loads}`;
    this.op({ op: 'append', item: { kind: 'divider', id: `${loaded}d`, text } });
    for (const item of messagesToItems(messages, loaded)) this.op({ op: 'append', item });
  }

  /**
   * The panel reached the top: the page before `beforeId` (the first item shown, else no items), kept so a re-sent
   * snapshot includes it. A stored session's page is read first (a page read for another session is dropped).
   */
  async olderPage(beforeId: string): Promise<{ items: ChatItem[]; hasOlder: boolean }> {
    const pager = this.older;
    const next = this.transcript.items[0]?.id === beforeId ? pager.next() : [];
    const page = Array.isArray(next) ? next : await next; // an in-memory page at once, a stored one when read
    const items = pager === this.older ? page : [];
    this.transcript.prepend(items);
    return { items, hasOlder: this.older.hasOlder };
  }

  /** Takes an item out of the chat (edit-and-resend drops the replaced turn's items). */
  remove(id: string): void {
    this.op({ op: 'remove', id });
  }

  /** The missing item `index` of the receipt on compaction card `id`, for its Pin button. */
  receiptItem(id: string, index: number): { kind: ReceiptKind; text: string } | undefined {
    return this.cards.receiptItem(id, index);
  }

  /** That item was pinned: its card says so. */
  receiptPinned(id: string, index: number): void {
    this.cards.receiptPinned(id, index);
  }

  /** Whether the session's compactions are stored, so the newest can be undone. */
  setUndoAvailable(available: boolean): void {
    this.cards.setUndoAvailable(available);
  }

  /** The work ledger changed: "Work so far" shows it. */
  setLedger(ledger: LedgerView): void {
    this.ledger = ledger;
    this.emit({ type: 'ledger/update', ledger });
  }

  /** The meter from a budget (the host computed it outside a turn, e.g. after clear or open). */
  setBudget(budget: BudgetViewModel): void {
    this.source = { budget };
    this.pushMeter();
  }

  /** What the session spent changed (the host's spend recorder is its one home). */
  setSpend(state: SpendState): void {
    this.extras = { ...this.extras, cost: state };
    this.pushMeter();
  }

  /** The loop breaker paused (reason) or resumed (null) auto-compaction. */
  setPausedReason(reason: string | null): void {
    this.extras = { ...this.extras, pausedReason: reason };
    this.pushMeter();
  }

  /** Appends or replaces an item the presenter does not derive from events (approvals). */
  put(item: ChatItem): void {
    this.op({ op: this.transcript.get(item.id) ? 'update' : 'append', item });
  }

  /** Shows an approval card for a request the host's broker is waiting on. */
  showApproval(id: string, request: ApprovalRequest): void {
    this.turn.showApproval(id, request);
  }

  /** Marks an approval card decided; ignores unknown ids. */
  settleApproval(id: string, decision: ApprovalDecision, cancelled = false): void {
    this.turn.settleApproval(id, decision, cancelled);
  }

  handle(event: AgentEvent): void {
    try {
      if (isTurnEvent(event)) this.turn.handle(event);
      else this.handlers[event.type](event as never);
    } catch {
      // A malformed event must not break the panel; the loop's own log has it.
    }
  }

  /** The events that are not the turn's own: what the meter and the compaction cards show. */
  private readonly handlers: { [T in OtherEvent['type']]: (e: Extract<OtherEvent, { type: T }>) => void } = {
    usage: (e) => {
      // The meter's figure follows context_usage; what it cost comes from the host (`setSpend`).
      this.lastModel = e.model;
    },
    context_usage: (e) => {
      this.source = { usage: e.usage };
      this.extras = { ...this.extras, status: e.usage.status };
      this.pushMeter();
    },
    context_edits: (e) => {
      const item = this.clearings.notice(this.nextId('n'), e.clearing);
      if (item) this.op({ op: 'append', item });
    },
    compaction_start: (e) => {
      this.cards.started(e);
      this.emitState();
    },
    compaction_end: (e) => {
      this.cards.ended(e);
      this.emitState();
    },
    compaction: (e) => {
      const r = e.report;
      const freed = Math.max(0, r.beforeTokens - r.afterTokens);
      // The summarizer's tokens at its model's prices (as the reopened card prices them); else the session model's.
      const model = r.model ?? this.lastModel;
      const prices = model ? pricesFor(model) : undefined;
      const cost = r.cost && prices ? costOf(r.cost, prices) : undefined;
      this.cards.finished(e, cost);
      this.extras = { ...this.extras, lastCompaction: { freedTokens: freed, at: this.now() } };
      this.pushMeter();
    },
  };

  private setRunning(running: boolean): void {
    if (this.running === running) return;
    this.running = running;
    this.emitState();
    this.cards.refreshUndo();
  }

  private emitState(): void {
    this.emit(
      this.cards.compacting
        ? { type: 'turn/state', running: this.running, compacting: true }
        : { type: 'turn/state', running: this.running },
    );
  }

  private pushMeter(): void {
    if (!this.source) return;
    this.meter =
      'budget' in this.source ? meterFromBudget(this.source.budget, this.extras) : meterFromUsage(this.source.usage, this.extras);
    this.emit({ type: 'context/usage', meter: this.meter });
  }

  private op(op: ChatOp): void {
    if (this.transcript.apply(op) !== undefined) this.emit({ type: 'chat/ops', ops: [op] });
  }

  private nextId(prefix: string): string {
    return `${prefix}${++this.seq}`;
  }
}
