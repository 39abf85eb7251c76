/**
 * The running turn in the chat: the user's message, the streaming answer, tool cards with their
 * output and durations (less the time an approval waited), retry countdowns, one error block per
 * failure, and the note a turn ends with. What the presenter derives from a turn's own events;
 * the meter and the compaction cards are `chat-presenter.ts`'s. Pure (no vscode); never throws.
 */
import type { AgentEvent } from '../agent/events';
import type { ChatItem, ChatItemOf, ChatOp } from '../protocol/view-models';
import type { ApprovalDecision, ApprovalRequest } from '../tools/ports';
import { approvalItem, settledApproval } from './approvals';
import { errorNotice } from './error-notice';
import { assistantText, PREVIEW_CHARS, stopNote, toolItem, userItem, withResult } from './transcript-items';

/** The events of a turn itself; the others go to the meter and the compaction cards. */
export type TurnEvent = Extract<AgentEvent, { type: (typeof TURN_EVENTS)[number] }>;

const TURN_EVENTS = [
  'turn_start',
  'message_start',
  'message_delta',
  'message_end',
  'tool_start',
  'tool_output',
  'tool_end',
  'retry',
  'error',
  'turn_end',
] as const satisfies ReadonlyArray<AgentEvent['type']>;

export function isTurnEvent(event: AgentEvent): event is TurnEvent {
  return (TURN_EVENTS as ReadonlyArray<string>).includes(event.type);
}

/** What the turn needs from the presenter. */
export interface TurnHost {
  op(op: ChatOp): void;
  put(item: ChatItem): void;
  get(id: string): ChatItem | undefined;
  readonly items: readonly ChatItem[];
  nextId(prefix: string): string;
  /** The clock (epoch ms). */
  now(): number;
  setRunning(running: boolean): void;
}

export class LiveTurn {
  private assistantId: string | undefined;
  /** The notice of the failure in progress: retries count down in it, and the final error replaces it. */
  private retryId: string | undefined;
  /** Error blocks shown since the last answer that worked: the next success clears them. */
  private readonly failures = new Set<string>();
  private readonly toolStarted = new Map<string, number>();
  /** Approval id → the tool call it holds up and since when (that wait is not the tool's duration). */
  private readonly waiting = new Map<string, { callId: string; cardId: string; since: number }>();
  private readonly toolOutput = new Map<string, number>();
  /**
   * The cards of the current answer's calls: call id → card id. A card's id is the panel's own, never
   * the call's: a server may give the calls of different answers the same id (every call `call_0`).
   */
  private cards = new Map<string, string>();

  constructor(private readonly host: TurnHost) {}

  handle(event: TurnEvent): void {
    this.handlers[event.type](event as never);
  }

  /** The transcript was replaced: nothing of the last turn is in progress any more. */
  forget(): void {
    this.assistantId = undefined;
    this.retryId = undefined;
    this.failures.clear();
    this.toolStarted.clear();
    this.toolOutput.clear();
    this.waiting.clear();
    this.cards.clear();
  }

  /** Shows an approval card for a request the host's broker is waiting on. */
  showApproval(id: string, request: ApprovalRequest): void {
    this.host.put(approvalItem(id, request));
    const card = this.card(request.toolCallId);
    if (card?.kind !== 'tool' || card.status !== 'running') return;
    this.waiting.set(id, { callId: request.toolCallId, cardId: card.id, since: this.host.now() });
    this.host.put({ ...card, status: 'waiting' });
  }

  /** Marks an approval card decided; ignores unknown ids. */
  settleApproval(id: string, decision: ApprovalDecision, cancelled = false): void {
    const item = this.host.get(id);
    if (item?.kind === 'approval') this.host.put(settledApproval(item, decision, cancelled));
    const wait = this.waiting.get(id);
    if (!wait) return;
    this.waiting.delete(id);
    // The clock restarts: the tool's duration leaves out the time the user took to decide.
    const started = this.toolStarted.get(wait.callId);
    if (started !== undefined) this.toolStarted.set(wait.callId, started + (this.host.now() - wait.since));
    const card = this.host.get(wait.cardId);
    if (card?.kind === 'tool' && card.status === 'waiting') this.host.put({ ...card, status: 'running' });
  }

  private readonly handlers: { [T in TurnEvent['type']]: (e: Extract<TurnEvent, { type: T }>) => void } = {
    turn_start: (e) => {
      // A retry goes on in the failed turn's error block: its countdowns and a new failure replace it, an answer clears it.
      if (e.resumed) this.retryId = [...this.failures].reverse().find((id) => this.host.get(id));
      this.host.setRunning(true);
    },
    message_start: (e) => {
      if (e.role === 'user') {
        this.host.op({ op: 'append', item: userItem(this.host.nextId('u'), e.message) });
        return;
      }
      this.assistantId = this.host.nextId('a');
      this.cards = new Map();
      this.host.op({ op: 'append', item: { kind: 'assistant', id: this.assistantId, text: '', streaming: true } });
    },
    message_delta: (e) => {
      // Something is arriving: the retry worked, its countdown is over.
      this.dropRetry();
      if (e.kind === 'toolCall') {
        if (!this.cards.has(e.toolCallId))
          this.host.op({
            op: 'append',
            item: this.newCard(toolItem({ type: 'toolCall', id: e.toolCallId, name: e.name, arguments: {} }, 'preparing')),
          });
        return;
      }
      if (this.assistantId && e.delta) this.host.op({ op: 'delta', id: this.assistantId, field: e.kind, text: e.delta });
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
      if (!text && !reasoning && !note) this.host.op({ op: 'remove', id: item.id });
      else this.host.op({ op: 'update', item });
    },
    tool_start: (e) => {
      const card = this.card(e.call.id);
      this.toolStarted.set(e.call.id, this.host.now());
      const item = toolItem(e.call, 'running');
      this.host.op(card ? { op: 'update', item: { ...item, id: card.id } } : { op: 'append', item: this.newCard(item) });
    },
    tool_output: (e) => {
      const sent = this.toolOutput.get(e.toolCallId) ?? 0;
      const card = this.card(e.toolCallId);
      if (sent >= PREVIEW_CHARS || !card) return;
      const chunk = e.chunk.slice(0, PREVIEW_CHARS - sent);
      this.toolOutput.set(e.toolCallId, sent + chunk.length);
      this.host.op({ op: 'delta', id: card.id, field: 'output', text: chunk });
    },
    tool_end: (e) => {
      const started = this.toolStarted.get(e.call.id);
      this.toolStarted.delete(e.call.id);
      this.toolOutput.delete(e.call.id);
      const current = this.card(e.call.id);
      const base = current ?? this.newCard(toolItem(e.call, 'running'));
      this.host.op({
        op: current ? 'update' : 'append',
        item: withResult(base, e.result, started === undefined ? undefined : this.host.now() - started),
      });
      // Answered: a later call with the same id (within this answer too) gets a card of its own.
      this.cards.delete(e.call.id);
    },
    retry: (e) => {
      // Every attempt of one failing request counts down in the same notice.
      this.retryId ??= this.host.nextId('r');
      this.host.put({
        kind: 'notice',
        id: this.retryId,
        level: 'warning',
        text: e.error.message,
        retryAt: this.host.now() + Math.max(0, e.delayMs),
        attempt: e.attempt,
      });
    },
    error: (e) => {
      if (e.kind === 'aborted') return this.dropRetry();
      // The failing request's retry notice becomes its error block: one block per failure.
      const id = this.retryId ?? this.host.nextId('e');
      this.retryId = undefined;
      this.failures.add(id);
      this.host.put(errorNotice(id, e.kind, e.message, e.kind !== 'storage'));
    },
    turn_end: (e) => {
      this.dropRetry();
      if (this.assistantId) {
        const a = this.host.get(this.assistantId);
        if (a?.kind === 'assistant') this.host.op({ op: 'update', item: { ...a, streaming: false } });
        this.assistantId = undefined;
      }
      // A call still open when the user stopped the turn was stopped by them; otherwise the turn ended before it ran.
      const status = e.reason === 'aborted' ? 'stopped' : 'cancelled';
      for (const item of this.host.items) {
        if (item.kind === 'tool' && (item.status === 'running' || item.status === 'preparing' || item.status === 'waiting'))
          this.host.op({ op: 'update', item: { ...item, status } });
      }
      this.toolStarted.clear();
      this.waiting.clear();
      const note = END_NOTE[e.reason];
      if (note) this.host.op({ op: 'append', item: { kind: 'notice', id: this.host.nextId('n'), level: note.level, text: note.text } });
      this.host.setRunning(false);
    },
  };

  /** The card of call `callId` of the current answer, while it is shown. */
  private card(callId: string): ChatItemOf<'tool'> | undefined {
    const id = this.cards.get(callId);
    const item = id === undefined ? undefined : this.host.get(id);
    return item?.kind === 'tool' ? item : undefined;
  }

  /** `item` under an id of the panel's own, noted as the card of its call. */
  private newCard(item: ChatItemOf<'tool'>): ChatItemOf<'tool'> {
    const card = { ...item, id: this.host.nextId('t') };
    this.cards.set(item.id, card.id);
    return card;
  }

  /** The request went on (or the turn ended): its retry countdown goes away. */
  private dropRetry(): void {
    if (!this.retryId) return;
    const id = this.retryId;
    this.retryId = undefined;
    if (this.host.get(id)) this.host.op({ op: 'remove', id });
  }

  /** An answer worked: the error blocks of earlier failures are out of date. */
  private clearFailures(): void {
    for (const id of this.failures) if (this.host.get(id)) this.host.op({ op: 'remove', id });
    this.failures.clear();
  }
}

/** What a turn that ended for a reason of its own says in the chat. */
const END_NOTE: Partial<Record<Extract<AgentEvent, { type: 'turn_end' }>['reason'], { level: 'info' | 'warning'; text: string }>> = {
  max_iterations: { level: 'info', text: 'Paused after the maximum number of model requests in one turn. Send a message to continue.' },
  context_full: {
    level: 'warning',
    text: 'The context is full even after compaction, so the model gave a final answer. Compact with a focus, or clear, to continue.',
  },
};
