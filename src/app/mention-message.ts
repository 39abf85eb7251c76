/**
 * Builds the user message of a prompt with @-mentions: the prompt's text, then one block per mention
 * (`tools/mentions/resolve-mentions.ts`). Each block goes through the same admission as a tool result
 * (`tools/admission.ts`, asking the gate about live headroom): one that fits goes in as text the meter
 * counts like the rest of the message; a large one, or one the guard refuses, is stored and replaced
 * by a bounded stub the model reads with `read_result`. So a mentioned 5 MB file never overflows the
 * window. Pure (no vscode).
 */
import { newId } from '../common/ids';
import type { Mention, MentionChip, MentionOption } from '../protocol/mentions';
import type { UserMessage } from '../providers/types';
import { admitResult } from '../tools/admission';
import { MentionIndex } from '../tools/mentions/mention-index';
import { resolveMentions, type MentionSources } from '../tools/mentions/resolve-mentions';
import { secretAllowList } from '../tools/secret-files';
import type { DefaultContextGate } from '../agent';
import type { ContextSettings } from '../context/settings';
import type { ResultPort } from '../tools/ports';
import type { Message } from '../providers/types';
import type { HostEnvironment } from './host-environment';

/**
 * A mention's block goes in whole up to this size (or the offload threshold, when that is larger) when
 * the guard agrees: a user who names a file expects the model to see it, unlike a tool's output.
 */
export const MENTION_INLINE_BYTES = 64 * 1024;

/** The name a stored mention block carries in the result store (what `read_result` reports). */
export const MENTION_TOOL_NAME = 'mention';

const indexes = new Map<string, MentionIndex>();

/** The picker's index for a workspace root (one per root, its walk cached briefly). */
export function mentionIndex(root: string): MentionIndex {
  let index = indexes.get(root);
  if (!index) indexes.set(root, (index = new MentionIndex(root)));
  return index;
}

/** The workspace's files and folders under `root` for the `@` picker (empty without a folder). Never rejects. */
export function searchMentions(root: string | undefined, query: string): Promise<MentionOption[]> {
  return root ? mentionIndex(root).search(query) : Promise.resolve([]);
}

/** What admitting a prompt's mentions reads, asked only when the prompt has some. */
export interface MentionParts {
  readonly env: HostEnvironment;
  settings(): ContextSettings;
  /** The gate of the session's model (it knows the live headroom). */
  gate(): Pick<DefaultContextGate, 'admit'>;
  /** Where a block too large to go in is stored. */
  results(): ResultPort;
  /** The context view the prompt joins. */
  messages(): readonly Message[];
}

/** `message` (a prompt's text and images) with its mentions resolved and admitted after them; the chips go on the message. */
export async function mentionMessage(from: MentionParts, message: UserMessage, mentions: readonly Mention[]): Promise<UserMessage> {
  if (!mentions.length) return message;
  const timestamp = message.timestamp;
  const root = from.env.folder()?.root;
  const editor = from.env.editorSources;
  const sources: MentionSources = {
    root,
    entries: () => (root ? mentionIndex(root).search('', Number.MAX_SAFE_INTEGER) : Promise.resolve([])),
    selection: () => (editor ? editor.selection() : Promise.resolve(undefined)),
    problems: () => (editor ? editor.problems() : Promise.resolve([])),
    secretsAllowed: secretAllowList(from.env.settings.secretFilesAllow()),
  };
  const resolved = await resolveMentions(mentions, sources);
  const settings = from.settings();
  const gate = from.gate();
  const parts: UserMessage['content'] = [...message.content];
  const chips: MentionChip[] = [];
  for (const r of resolved) {
    if (!r.attached) {
      parts.push({ type: 'text', text: `\n\n${r.text}` });
      chips.push(r.chip);
      continue;
    }
    const admitted = await admitResult(
      {
        role: 'toolResult',
        toolCallId: newId('mention'),
        toolName: MENTION_TOOL_NAME,
        content: [{ type: 'text', text: r.text }],
        isError: false,
        timestamp,
      },
      {
        store: from.results(),
        thresholdBytes: Math.max(MENTION_INLINE_BYTES, settings.offloadThresholdBytes),
        // The view as it is now, with the prompt and the blocks admitted so far.
        admit: (sizes) => gate.admit(sizes, [...from.messages(), { role: 'user', content: parts, timestamp }]),
      },
    );
    const block = admitted.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    parts.push({ type: 'text', text: `\n\n${block}` });
    chips.push(admitted.refId ? { ...r.chip, stored: true } : r.chip);
  }
  return { ...message, content: parts, mentions: chips };
}
