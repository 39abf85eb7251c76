import type {
  AssistantMessage,
  ProviderError,
  ProviderId,
  ReasoningPart,
  StopReason,
  StreamEvent,
  TextPart,
  ToolCallPart,
  Usage,
} from './types';
import { normalizeUsage } from './usage';

/** Usage with every figure zero. */
export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

/** Parses tool-call argument text; unparsable or non-object text gives `{}` plus the raw text. */
export function parseToolArguments(raw: string): { arguments: Record<string, unknown>; rawArguments?: string } {
  if (raw.trim() === '') return { arguments: {} };
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return { arguments: v as Record<string, unknown> };
  } catch {
    // fall through: the tool layer reports the raw text to the model
  }
  return { arguments: {}, rawArguments: raw };
}

type Slot =
  | { kind: 'text'; part: TextPart }
  | { kind: 'reasoning'; part: ReasoningPart }
  | { kind: 'tool'; id: string; name: string; json: string; itemId?: string; done?: ToolCallPart };

/**
 * Accumulates one streamed assistant reply, keyed by the provider's block/tool index, and produces
 * the neutral `AssistantMessage`. Tool calls whose arguments never finished are dropped from a
 * broken message (they cannot be executed); finished text and reasoning are kept.
 */
export class AssistantBuilder {
  private readonly slots = new Map<string, Slot>();
  private readonly order: string[] = [];
  usage: Usage = emptyUsage();
  stopReason: StopReason = 'end';
  /** Set once the provider started answering; a failure after it marks the message partial. */
  started = false;

  constructor(
    private readonly provider: ProviderId,
    readonly model: string,
  ) {}

  private slot(key: string, create: () => Slot): Slot {
    let s = this.slots.get(key);
    if (!s) {
      s = create();
      this.slots.set(key, s);
      this.order.push(key);
    }
    return s;
  }

  text(key: string, delta: string): StreamEvent | undefined {
    const s = this.slot(key, () => ({ kind: 'text', part: { type: 'text', text: '' } }));
    if (s.kind !== 'text' || !delta) return undefined;
    s.part.text += delta;
    return { type: 'text_delta', delta };
  }

  reasoning(key: string, delta: string): StreamEvent | undefined {
    const s = this.slot(key, () => ({ kind: 'reasoning', part: { type: 'reasoning', text: '' } }));
    if (s.kind !== 'reasoning' || !delta) return undefined;
    s.part.text += delta;
    return { type: 'reasoning_delta', delta };
  }

  reasoningSignature(key: string, signature: string): void {
    const s = this.slot(key, () => ({ kind: 'reasoning', part: { type: 'reasoning', text: '' } }));
    if (s.kind === 'reasoning') s.part.signature = (s.part.signature ?? '') + signature;
  }

  redactedReasoning(key: string, data: string): void {
    this.slot(key, () => ({ kind: 'reasoning', part: { type: 'reasoning', text: '', redactedData: data } }));
  }

  /**
   * Starts a tool call; returns the start event the first time this key is seen with a name.
   * `itemId` is the provider's own id of the call item, when it has one besides the call id.
   */
  toolStart(key: string, id: string, name: string, itemId?: string): StreamEvent | undefined {
    const existed = this.slots.has(key);
    const s = this.slot(key, () => ({ kind: 'tool', id, name, json: '' }));
    if (s.kind !== 'tool') return undefined;
    if (!s.itemId && itemId) s.itemId = itemId;
    if (!s.id && id) s.id = id;
    if (!s.name && name) s.name = name;
    return existed ? undefined : { type: 'toolcall_start', id: s.id, name: s.name };
  }

  toolArgs(key: string, delta: string): void {
    const s = this.slots.get(key);
    if (s?.kind === 'tool') s.json += delta;
  }

  /** Argument text received so far for a tool call ('' when none). */
  toolArgsSoFar(key: string): string {
    const s = this.slots.get(key);
    return s?.kind === 'tool' ? s.json : '';
  }

  /** Finishes a tool call; returns its end event (once). */
  toolEnd(key: string): StreamEvent | undefined {
    const s = this.slots.get(key);
    if (s?.kind !== 'tool' || s.done) return undefined;
    s.done = { type: 'toolCall', id: s.id, name: s.name, ...parseToolArguments(s.json) };
    if (s.itemId) s.done.itemId = s.itemId;
    return { type: 'toolcall_end', call: s.done };
  }

  /** Finishes every open tool call (for protocols without a per-call end marker). */
  endAllTools(): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const key of this.order) {
      const e = this.toolEnd(key);
      if (e) out.push(e);
    }
    return out;
  }

  hasToolCalls(): boolean {
    return [...this.slots.values()].some((s) => s.kind === 'tool' && s.done);
  }

  /** All output text (text, reasoning, tool arguments) for estimating output tokens. */
  outputText(): string {
    return this.order
      .map((k) => {
        const s = this.slots.get(k)!;
        return s.kind === 'tool' ? s.name + s.json : s.part.text;
      })
      .join('');
  }

  private content(): AssistantMessage['content'] {
    const out: AssistantMessage['content'] = [];
    for (const key of this.order) {
      const s = this.slots.get(key)!;
      if (s.kind === 'tool') {
        if (s.done) out.push(s.done);
      } else if (s.kind === 'text') {
        if (s.part.text) out.push(s.part);
      } else if (s.part.text || s.part.signature || s.part.redactedData) {
        out.push(s.part);
      }
    }
    return out;
  }

  /** The finished message. A clean end with finished tool calls is always `toolUse`. */
  finish(): AssistantMessage {
    const stopReason = this.stopReason === 'end' && this.hasToolCalls() ? 'toolUse' : this.stopReason;
    return this.base(stopReason);
  }

  /** The message for a failed or aborted stream: what arrived is kept and marked partial. */
  fail(error: ProviderError): AssistantMessage {
    const m = this.base(error.kind === 'aborted' ? 'aborted' : 'error');
    m.error = error;
    if (this.started) m.partial = true;
    return m;
  }

  private base(stopReason: StopReason): AssistantMessage {
    return {
      role: 'assistant',
      content: this.content(),
      provider: this.provider,
      model: this.model,
      usage: normalizeUsage(this.usage), // the last guard: whatever an adapter did, a message always saves
      stopReason,
      timestamp: Date.now(),
    };
  }
}
