/**
 * Every tool call of the conversation sent to a provider gets an id no other call there has. Some
 * OpenAI-compatible servers repeat ids: every answer's first call is `call_0`, or every call of one
 * answer has the same id (Xinference: https://github.com/xorbitsai/inference/issues/4237). Sent back
 * as they came, a result can be paired with another call of that id, Anthropic refuses the request
 * ("`tool_use` ids must be unique"; each `tool_result` names one `tool_use_id`:
 * https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use) and the Responses
 * API too ("Duplicate call_ids submitted"). A repeated id is renamed (`call_0_2`, letters, digits and
 * `_` as Anthropic's id pattern allows) as it streams in, so the events, the stored message and the
 * next request all carry the new one; an id the server did not repeat is kept as it is. Pure; never throws.
 */
import type { AssistantMessage, Message, ToolCallPart } from '../providers/types';

export class CallIds {
  /** Ids of the calls and results the request carries, and those this answer has taken so far. */
  private readonly taken = new Set<string>();
  /** Each call's id as the server sent it and as it is kept, in the order the calls started streaming. */
  private readonly started: Array<{ from: string; to: string }> = [];

  constructor(private readonly sent: readonly Message[]) {
    for (const id of idsOf(sent)) this.taken.add(id);
  }

  /** The id a call that starts streaming with `id` is kept under. */
  start(id: string): string {
    const to = this.taken.has(id) ? fresh(id, this.taken) : id;
    this.taken.add(to);
    this.started.push({ from: id, to });
    return to;
  }

  /** The finished answer with the ids its calls streamed under (a call that did not stream is checked here). */
  finish(message: AssistantMessage): AssistantMessage {
    const seen = new Set(idsOf(this.sent));
    let k = 0;
    let changed = false;
    const content = message.content.map((p) => {
      if (p.type !== 'toolCall') return p;
      const started = this.started[k++];
      let id = started && started.from === p.id ? started.to : p.id;
      if (seen.has(id)) id = fresh(id, new Set([...seen, ...this.taken]));
      seen.add(id);
      if (id === p.id) return p;
      changed = true;
      return { ...p, id } satisfies ToolCallPart;
    });
    return changed ? { ...message, content } : message;
  }
}

function* idsOf(messages: readonly Message[]): Iterable<string> {
  for (const m of messages) {
    if (m.role === 'toolResult') yield m.toolCallId;
    else if (m.role === 'assistant') for (const p of m.content) if (p.type === 'toolCall') yield p.id;
  }
}

/** `id` with the smallest suffix `_2`, `_3`, … that no id in `taken` has. */
function fresh(id: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) if (!taken.has(`${id}_${n}`)) return `${id}_${n}`;
}
