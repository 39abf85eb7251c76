/**
 * Maps Headroom's neutral messages to the panel's chat items: for a session opened from history and
 * for the presenter's live events. Pure (no vscode); never throws.
 */
import type { AssistantMessage, Message, ToolCallPart, ToolResultMessage, UserMessage } from '../providers/types';
import { parseHistoryMessage, type HistoryParts } from '../context/compaction';
import { ImageSrc, type ChatItem, type ChatItemOf } from '../protocol/view-models';
import { assistantText, toolSummary, userText } from '../providers/message-text';
import { resultText } from '../providers/tool-result-text';
import { repeatNote } from '../agent/ledger/repeat-guard';
import { stubPreview } from '../tools/admission';
import { userDecision } from '../tools/builtin/approval';
import { storedApprovalItem } from './approvals';

export { assistantText, toolSummary, userText };

/** How much of a tool result the card shows (the whole result is a click away when offloaded). */
export const PREVIEW_CHARS = 2_000;
/** Longest argument JSON a card shows. */
export const ARGS_CHARS = 4_000;

/** A user bubble: the text, each image as a data: URL of an accepted type (anything else is left out), and the @-mentions' chips. */
export function userItem(id: string, m: UserMessage): ChatItemOf<'user'> {
  const images = m.content.flatMap((p) => {
    if (p.type !== 'image') return [];
    const src = `data:${p.mediaType};base64,${p.data}`;
    return ImageSrc.safeParse(src).success ? [src] : [];
  });
  const mentions = m.mentions?.slice(0, 50).map((c) => ({ ...c, label: c.label.slice(0, 1_100) }));
  return { kind: 'user', id, text: userText(m, 'omit'), ...(images.length ? { images } : {}), ...(mentions?.length ? { mentions } : {}) };
}

/** Why an answer ended early, shown under it; undefined for a normal end. */
export function stopNote(m: AssistantMessage): string | undefined {
  if (m.stopReason === 'aborted') return 'Stopped.';
  if (m.stopReason === 'error') {
    // A request the provider refused before anything streamed is not a broken answer: the loop compacts
    // and retries, and the compaction item says so (or the turn's error notice says what failed).
    if (!m.partial && m.content.length === 0) return undefined;
    return `The answer broke off: ${m.error?.message ?? 'provider error'}`;
  }
  if (m.stopReason === 'maxTokens') return 'The answer reached the output limit.';
  return undefined;
}

export function toolArgs(call: Pick<ToolCallPart, 'arguments' | 'rawArguments'>): string {
  let s: string;
  try {
    s = call.rawArguments ?? JSON.stringify(call.arguments ?? {}, null, 2);
  } catch {
    s = String(call.rawArguments ?? '');
  }
  return s.length > ARGS_CHARS ? `${s.slice(0, ARGS_CHARS)}\n… (${s.length - ARGS_CHARS} more characters)` : s;
}

export function resultPreview(r: Pick<ToolResultMessage, 'content'>): string {
  let s = '';
  for (const p of r.content) {
    s += p.type === 'text' ? p.text : '[image]';
    if (s.length > PREVIEW_CHARS) break;
  }
  return s.length > PREVIEW_CHARS ? `${s.slice(0, PREVIEW_CHARS)}\n…` : s;
}

export function toolItem(call: ToolCallPart, status: ChatItemOf<'tool'>['status']): ChatItemOf<'tool'> {
  return { kind: 'tool', id: call.id, name: call.name, summary: toolSummary(call), args: toolArgs(call), status, output: '' };
}

export function withResult(
  item: ChatItemOf<'tool'>,
  r: ToolResultMessage & { errorKind?: string },
  durationMs?: number,
): ChatItemOf<'tool'> {
  const decided = userDecision(r);
  const status = decided ?? (r.errorKind === 'aborted' ? 'cancelled' : r.isError ? 'error' : 'done');
  // A stored result's card shows its first lines (and Open), not the stub the model reads.
  const stored = r.refId ? stubPreview(resultText(r)) : undefined;
  const next: ChatItemOf<'tool'> = { ...item, status, output: stored ?? resultPreview(r) };
  if (r.refId) next.refId = r.refId;
  if (r.refId && r.stored) next.stored = { bytes: r.stored.bytes, lines: r.stored.lines };
  if (durationMs !== undefined) next.durationMs = Math.max(0, durationMs);
  const note = r.isError ? undefined : repeatNote(resultText(r));
  if (note) next.note = note.slice(0, 1_000);
  return next;
}

/** The summary a compacted context starts with, as a summary card (never a user bubble). */
export function summaryItem(id: string, parts: HistoryParts): ChatItemOf<'summary'> {
  return { kind: 'summary', id, text: parts.summary ?? '', carried: [...parts.pins, ...parts.instructions].slice(0, 200) };
}

/**
 * A stored transcript as chat items; ids are stable for the same messages and unique whatever the
 * call ids (`<prefix>m<index>`, a call's card `<prefix>m<index>t<part>`, its approval's card that with
 * `a`; `offset`: the index of the first message, for a page of a longer list). A result goes to the
 * call of that id in the assistant message it follows (a server may reuse ids across messages, and
 * even within one: then the calls are answered in order). A history message (a compaction's summary)
 * becomes a summary card; an approval kept with a result comes back as its settled card, after the
 * message's calls as it came live.
 */
export function messagesToItems(messages: readonly Message[], prefix = '', offset = 0): ChatItem[] {
  const items: ChatItem[] = [];
  /** The calls of the last assistant message not answered yet: call id → their cards' indices, in order. */
  let open = new Map<string, number[]>();
  messages.forEach((m, at) => {
    const i = offset + at;
    if (m.role === 'user') {
      const history = parseHistoryMessage(m);
      items.push(history ? summaryItem(`${prefix}m${i}`, history) : userItem(`${prefix}m${i}`, m));
    } else if (m.role === 'assistant') {
      const { text, reasoning } = assistantText(m);
      const note = stopNote(m);
      if (text || reasoning || note) {
        const item: ChatItemOf<'assistant'> = { kind: 'assistant', id: `${prefix}m${i}`, text, streaming: false };
        if (reasoning) item.reasoning = reasoning;
        if (note) item.stopNote = note;
        items.push(item);
      }
      open = new Map();
      m.content.forEach((p, part) => {
        if (p.type !== 'toolCall') return;
        open.set(p.id, [...(open.get(p.id) ?? []), items.length]);
        items.push({ ...toolItem(p, 'cancelled'), id: `${prefix}m${i}t${part}` });
      });
    } else {
      const at = open.get(m.toolCallId)?.shift();
      const existing = at === undefined ? undefined : items[at];
      let card: ChatItemOf<'tool'>;
      if (at !== undefined && existing?.kind === 'tool') items[at] = card = withResult(existing, m);
      else {
        // A result whose call is not shown (cut from its page, or a malformed history): a card of its own.
        card = withResult({ kind: 'tool', id: `${prefix}m${i}`, name: m.toolName, summary: '', args: '', status: 'done', output: '' }, m);
        items.push(card);
      }
      const approval = storedApprovalItem(`${card.id}a`, m);
      if (approval) items.push(approval);
    }
  });
  return items;
}
