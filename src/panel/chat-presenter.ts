/**
 * Turns the agent loop's events and the context budget into panel messages, and keeps the transcript view model so the
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
import type { ChatItem, ChatItemOf, ChatOp, LedgerView, MeterView, ReceiptKind } from '../protocol/view-models';
import type { ApprovalDecision, ApprovalRequest } from '../tools/ports';
import { approvalItem, settledApproval } from './approvals';
import { CompactionCards, DIVIDER_TEXT, type CompactionHistory } from './compaction-cards';
import { errorNotice } from './error-notice';
import { MeterExtras, meterFromBudget, meterFromUsage } from './meter-view';
import { assistantText, messagesToItems, PREVIEW_CHARS, stopNote, toolItem, userItem, userText, withResult } from './transcript-items';
import { StoredPages } from './stored-history';
import { OlderPages } from './transcript-pages';

type Source = { budget: BudgetViewModel } | { usage: ContextUsage };

export class ChatPresenter {
  readonly transcript = new Transcript();
  private running = false;
  private seq = 0;
  private assistantId: string | undefined;
  /** The notice of the failure in progress: retries count down in it, and the final error replaces it. */
  private retryId: string | undefined;
  /** Error blocks shown since the last answer that worked: the next success clears them. */
  private readonly failures = new Set<string>();
  /** The text of the running turn's prompt, which [Retry] sends again. */
  private prompt: string | undefined;
  private readonly toolStarted = new Map<string, number>();
  /** Approval id → the tool call it holds up and since when (that wait is not the tool's duration). */
  private readonly waiting = new Map<string, { callId: string; since: number }>();
  private readonly toolOutput = new Map<string, number>();
  private source: Source | undefined;
  private meter: MeterView | null = null;
  private extras: MeterExtras = {};
  private lastModel: string | undefined;
  private ledger: LedgerView | null = null;
  /** Transcript reloads so far: items of a reloaded context get ids of their own (`l<n>m<i>`). */
  private loads = 0;
  private readonly cards: CompactionCards;
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
    this.forgetTurn();
    const cards = history ? this.cards.reopened(history) : []; // without the stored transcript they head the oldest page
    const pages = history?.stored ? new StoredPages(history.stored, cards) : new OlderPages();
    this.older = pages;
    this.transcript.reset(pages instanceof StoredPages ? pages.load() : pages.load(messages, cards));
  }

  /**
   * The context was replaced while the chat stays (a snapshot restored, a compaction undone): nothing is removed. An undo of
   * the newest compaction shown takes its divider away; otherwise a divider goes under everything and the new context follows.
   */
  continueWith(messages: readonly Message[], why: 'restore' | 'undo'): void {
    if (why === 'undo' && this.cards.undone()) return;
    this.continueUnder(messages, why === 'restore' ? `${DIVIDER_TEXT} · snapshot restored` : `${DIVIDER_TEXT} · compaction undone`);
  }

  /** A divider under everything shown (`text`), then the new context (nothing is removed). */
  continueUnder(messages: readonly Message[], text: string): void {
    this.cards.retireNewest();
    const loaded = `l${++this.loads}`;
    this.op({ op: 'append', item: { kind: 'divider', id: `${loaded}d`, text } });
    for (const item of messagesToItems(messages, loaded)) this.op({ op: 'append', item });
  }

  /**
   * The panel reached the top: posts the page before `beforeId` (the first item shown, else no items) and keeps it, so a
   * re-sent snapshot includes it. A stored session's page is read first (a page read for another session is dropped).
   */
  async olderPage(beforeId: string): Promise<void> {
    const pager = this.older;
    const next = this.transcript.items[0]?.id === beforeId ? pager.next() : [];
    const page = Array.isArray(next) ? next : await next; // an in-memory page at once, a stored one when read
    const items = pager === this.older ? page : [];
    this.transcript.prepend(items);
    this.emit({ type: 'transcript/page', beforeId, items, hasOlder: this.older.hasOlder });
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

  private forgetTurn(): void {
    this.assistantId = undefined;
    this.retryId = undefined;
    this.failures.clear();
    this.toolStarted.clear();
    this.toolOutput.clear();
    this.waiting.clear();
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
    this.put(approvalItem(id, request));
    const card = this.transcript.get(request.toolCallId);
    if (card?.kind !== 'tool' || card.status !== 'running') return;
    this.waiting.set(id, { callId: card.id, since: this.now() });
    this.put({ ...card, status: 'waiting' });
  }

  /** Marks an approval card decided; ignores unknown ids. */
  settleApproval(id: string, decision: ApprovalDecision, cancelled = false): void {
    const item = this.transcript.get(id);
    if (item?.kind === 'approval') this.put(settledApproval(item, decision, cancelled));
    const wait = this.waiting.get(id);
    if (!wait) return;
    this.waiting.delete(id);
    // The clock restarts: the tool's duration leaves out the time the user took to decide.
    const started = this.toolStarted.get(wait.callId);
    if (started !== undefined) this.toolStarted.set(wait.callId, started + (this.now() - wait.since));
    const card = this.transcript.get(wait.callId);
    if (card?.kind === 'tool' && card.status === 'waiting') this.put({ ...card, status: 'running' });
  }

  handle(event: AgentEvent): void {
    try {
      this.handlers[event.type](event as never);
    } catch {
      // A malformed event must not break the panel; the loop's own log has it.
    }
  }

  private readonly handlers: { [T in AgentEvent['type']]: (e: Extract<AgentEvent, { type: T }>) => void } = {
    turn_start: (e) => {
      this.prompt = userText(e.prompt, 'omit');
      this.setRunning(true);
    },
    message_start: (e) => {
      if (e.role === 'user') {
        this.op({ op: 'append', item: userItem(this.nextId('u'), e.message) });
        return;
      }
      this.assistantId = this.nextId('a');
      this.op({ op: 'append', item: { kind: 'assistant', id: this.assistantId, text: '', streaming: true } });
    },
    message_delta: (e) => {
      // Something is arriving: the retry worked, its countdown is over.
      this.dropRetry();
      if (e.kind === 'toolCall') {
        if (!this.transcript.get(e.toolCallId))
          this.op({ op: 'append', item: toolItem({ type: 'toolCall', id: e.toolCallId, name: e.name, arguments: {} }, 'preparing') });
        return;
      }
      if (this.assistantId && e.delta) this.op({ op: 'delta', id: this.assistantId, field: e.kind, text: e.delta });
    },
    message_end: (e) => {
      const m = e.message;
      if (m.role !== 'assistant' || !this.assistantId) return;
      const { text, reasoning } = assistantText(m);
      const item: ChatItemOf<'assistant'> = { kind: 'assistant', id: this.assistantId, text, streaming: false };
      if (reasoning) item.reasoning = reasoning;
      // A failure gets one error block (from the `error` event); the bubble only says that text was cut.
      const note = m.stopReason === 'error' ? (text || reasoning ? 'The answer broke off.' : undefined) : stopNote(m);
      if (note) item.stopNote = note;
      this.assistantId = undefined;
      if (m.stopReason !== 'error' && m.stopReason !== 'aborted') {
        this.dropRetry();
        this.clearFailures();
      }
      // A message that is only tool calls leaves no empty bubble behind.
      if (!text && !reasoning && !note) this.op({ op: 'remove', id: item.id });
      else this.op({ op: 'update', item });
    },
    tool_start: (e) => {
      this.toolStarted.set(e.call.id, this.now());
      this.op({ op: this.transcript.get(e.call.id) ? 'update' : 'append', item: toolItem(e.call, 'running') });
    },
    tool_output: (e) => {
      const sent = this.toolOutput.get(e.toolCallId) ?? 0;
      if (sent >= PREVIEW_CHARS || !this.transcript.get(e.toolCallId)) return;
      const chunk = e.chunk.slice(0, PREVIEW_CHARS - sent);
      this.toolOutput.set(e.toolCallId, sent + chunk.length);
      this.op({ op: 'delta', id: e.toolCallId, field: 'output', text: chunk });
    },
    tool_end: (e) => {
      const started = this.toolStarted.get(e.call.id);
      this.toolStarted.delete(e.call.id);
      this.toolOutput.delete(e.call.id);
      const current = this.transcript.get(e.call.id);
      const base = current?.kind === 'tool' ? current : toolItem(e.call, 'running');
      this.op({
        op: current ? 'update' : 'append',
        item: withResult(base, e.result, started === undefined ? undefined : this.now() - started),
      });
    },
    usage: (e) => {
      // The meter's figure follows context_usage; what it cost comes from the host (`setSpend`).
      this.lastModel = e.model;
    },
    context_usage: (e) => {
      this.source = { usage: e.usage };
      this.extras = { ...this.extras, status: e.usage.status };
      this.pushMeter();
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
      // The summarizer's tokens, at the session model's prices (the summarizer model is usually the same).
      const prices = this.lastModel ? pricesFor(this.lastModel) : undefined;
      const cost = r.cost && prices ? costOf(r.cost, prices) : undefined;
      this.cards.finished(e, cost);
      this.extras = { ...this.extras, lastCompaction: { freedTokens: freed, at: this.now() } };
      this.pushMeter();
    },
    retry: (e) => {
      // Every attempt of one failing request counts down in the same notice.
      this.retryId ??= this.nextId('r');
      this.put({
        kind: 'notice',
        id: this.retryId,
        level: 'warning',
        text: e.error.message,
        retryAt: this.now() + Math.max(0, e.delayMs),
        attempt: e.attempt,
      });
    },
    error: (e) => {
      if (e.kind === 'aborted') return this.dropRetry();
      // The failing request's retry notice becomes its error block: one block per failure.
      const id = this.retryId ?? this.nextId('e');
      this.retryId = undefined;
      this.failures.add(id);
      this.put(errorNotice(id, e.kind, e.message, e.kind === 'storage' ? undefined : this.prompt));
    },
    turn_end: (e) => {
      this.dropRetry();
      if (this.assistantId) {
        const a = this.transcript.get(this.assistantId);
        if (a?.kind === 'assistant') this.op({ op: 'update', item: { ...a, streaming: false } });
        this.assistantId = undefined;
      }
      for (const item of this.transcript.items) {
        if (item.kind === 'tool' && (item.status === 'running' || item.status === 'preparing' || item.status === 'waiting'))
          this.op({ op: 'update', item: { ...item, status: 'cancelled' } });
      }
      this.toolStarted.clear();
      this.waiting.clear();
      const note = END_NOTE[e.reason];
      if (note) this.op({ op: 'append', item: { kind: 'notice', id: this.nextId('n'), level: note.level, text: note.text } });
      this.setRunning(false);
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

  /** The request went on (or the turn ended): its retry countdown goes away. */
  private dropRetry(): void {
    if (!this.retryId) return;
    const id = this.retryId;
    this.retryId = undefined;
    if (this.transcript.get(id)) this.op({ op: 'remove', id });
  }

  /** An answer worked: the error blocks of earlier failures are out of date. */
  private clearFailures(): void {
    for (const id of this.failures) if (this.transcript.get(id)) this.op({ op: 'remove', id });
    this.failures.clear();
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

const END_NOTE: Partial<Record<Extract<AgentEvent, { type: 'turn_end' }>['reason'], { level: 'info' | 'warning'; text: string }>> = {
  max_iterations: { level: 'info', text: 'Paused after the maximum number of model requests in one turn. Send a message to continue.' },
  context_full: {
    level: 'warning',
    text: 'The context is full even after compaction, so the model gave a final answer. Compact with a focus, or clear, to continue.',
  },
};
