/**
 * The chat's items as the side panel shows them (user and assistant messages, tool cards, approvals,
 * notices, compaction cards and dividers, a turn's changes) and the ops that change the transcript.
 * Plain JSON, already formatted where text is shown. Browser-safe: zod and pure data.
 */
import { z } from 'zod';
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BASE64 } from '../common/images';
import { MentionChip } from './mentions';

const id = z.string().min(1).max(200);

/** An image as the panel shows it: a data: URL of one of the accepted types (checked by its bytes on the host). */
export const ImageSrc = z
  .string()
  .max(MAX_IMAGE_BASE64 + 40)
  .regex(/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/);
/** An image the composer attaches to a prompt: base64 of the bytes (no data: prefix). The host checks the bytes again. */
export const ImageAttachment = z.object({
  mediaType: z.enum(IMAGE_MEDIA_TYPES),
  data: z.string().min(4).max(MAX_IMAGE_BASE64),
});
export type ImageAttachment = z.infer<typeof ImageAttachment>;

export const UserItem = z.object({
  kind: z.literal('user'),
  id,
  text: z.string(),
  images: z.array(ImageSrc).max(20).optional(),
  /** What the prompt's `@` mentions attached (chips under the text). */
  mentions: z.array(MentionChip).max(50).optional(),
});
export const AssistantItem = z.object({
  kind: z.literal('assistant'),
  id,
  text: z.string(),
  reasoning: z.string().optional(),
  streaming: z.boolean(),
  /** Set when the answer ended with an error or was stopped (shown under the text). */
  stopNote: z.string().optional(),
});
/** `waiting`: an approval for this call waits for the user (that time is not in `durationMs`). */
/** `rejected` / `stopped`: the user's decision, not a failure (`error`); `cancelled`: the turn ended before it ran. */
export const ToolStatus = z.enum(['preparing', 'running', 'waiting', 'done', 'error', 'rejected', 'stopped', 'cancelled']);
export const ToolItem = z.object({
  kind: z.literal('tool'),
  /** The tool call id. */
  id,
  name: z.string(),
  /** One-line summary of the arguments (e.g. the path) and their pretty JSON. */
  summary: z.string(),
  args: z.string(),
  status: ToolStatus,
  durationMs: z.number().nonnegative().optional(),
  /** Live output while running, then the start of what joined the context. */
  output: z.string(),
  /** Set when the full result was offloaded: "Open full result" opens it. */
  refId: z.string().optional(),
  /** Size of the offloaded result, shown as "stored · 35.9 KB · 400 lines · kept out of context". */
  stored: z.object({ bytes: z.number().nonnegative(), lines: z.number().int().nonnegative() }).optional(),
  /** The call was not run: the work was done already ("Not run again: `npm test` already ran at turn 12 …"). */
  note: z.string().max(1_000).optional(),
});
export const ApprovalRequestView = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('edit'), path: z.string(), isNew: z.boolean(), added: z.number().int(), removed: z.number().int() }),
  z.object({ kind: z.literal('command'), command: z.string(), cwd: z.string() }),
  /** A call to an external tool (extension or MCP server): who provides it and the input it gets. */
  z.object({ kind: z.literal('tool'), origin: z.string(), input: z.string() }),
  /** Reading a file that looks like a secret: the path asked, the real file, and why it looks like one. */
  z.object({ kind: z.literal('secret'), path: z.string(), target: z.string(), reason: z.string() }),
]);
export const ApprovalItem = z.object({
  kind: z.literal('approval'),
  id,
  toolCallId: z.string(),
  toolName: z.string(),
  request: ApprovalRequestView,
  state: z.enum(['pending', 'approved', 'rejected', 'cancelled']),
  /** Why it was rejected or cancelled. */
  note: z.string().optional(),
});
/** A button on an error block: Retry runs the failed turn again; the others run the Headroom command of that name. */
export const NoticeAction = z.enum(['retry', 'setApiKey', 'openSettings', 'selectModel', 'showLog']);
export type NoticeAction = z.infer<typeof NoticeAction>;
export const NoticeItem = z.object({
  kind: z.literal('notice'),
  id,
  level: z.enum(['info', 'warning', 'error']),
  text: z.string(),
  /** Epoch ms when the provider retries; the panel counts down to it. */
  retryAt: z.number().optional(),
  attempt: z.number().int().optional(),
  /** A failure's headline in plain words ("The provider refused the API key."); `text` is the detail. */
  title: z.string().optional(),
  /** The next steps the error block offers, in order. */
  actions: z.array(NoticeAction).max(4).optional(),
  /** Set for network failures: the panel names the server address that could not be reached. */
  unreachable: z.boolean().optional(),
});
/** A message of the context as one line ("You: fix the tests", "read_file result"), for the compaction view. */
export const ContextLine = z.object({ role: z.enum(['user', 'assistant', 'tool', 'summary']), text: z.string() });
export type ContextLine = z.infer<typeof ContextLine>;

/** What one compaction did to the context: what stayed, what was summarized, stored or dropped. */
export const CompactionDetails = z.object({
  /** Messages still in the context verbatim, oldest first (at most 50 listed; `keptCount` is the total). */
  kept: z.array(ContextLine).max(50),
  keptCount: z.number().int().nonnegative(),
  /** Messages the summary replaced (at most 50 listed). */
  summarized: z.array(ContextLine).max(50),
  summarizedCount: z.number().int().nonnegative(),
  /** The summary the context now starts with, when a model wrote one. */
  summary: z.string().optional(),
  /** Tool results taken out of the context and stored: each opens by its ref id, listed by its tool and target. */
  stored: z
    .array(
      z.object({
        refId: z.string(),
        toolName: z.string().optional(),
        /** What the call acted on (its path, command or query), so the list says what each result was. */
        target: z.string().max(200).optional(),
      }),
    )
    .max(200),
  /** Messages dropped without a summary (their user instructions are carried in the history message). */
  dropped: z.array(ContextLine).max(50),
  droppedCount: z.number().int().nonnegative(),
});
export type CompactionDetails = z.infer<typeof CompactionDetails>;

/** The kinds of specifics a compaction receipt checks, in the order the card lists them. */
export const RECEIPT_KINDS = ['instructions', 'errors', 'commands', 'paths', 'decisions', 'numbers'] as const;
export const ReceiptKind = z.enum(RECEIPT_KINDS);
export type ReceiptKind = z.infer<typeof ReceiptKind>;

/**
 * A compaction's receipt: of the specifics in what it removed (paths, commands, errors, numbers,
 * decisions, the user's instructions), how many the next request still carries — in the summary, the
 * pins, the work ledger or the kept turns — and which are missing (at most 40 named).
 */
export const CompactionReceipt = z.object({
  counts: z
    .array(z.object({ kind: ReceiptKind, kept: z.number().int().nonnegative(), total: z.number().int().nonnegative() }))
    .max(RECEIPT_KINDS.length),
  missing: z.array(z.object({ kind: ReceiptKind, text: z.string().max(300) })).max(40),
});
export type CompactionReceipt = z.infer<typeof CompactionReceipt>;

/** The receipt as the card shows it: "kept 23/25 paths, 11/11 commands" and the missing items, each pinnable. */
export const ReceiptView = z.object({
  line: z.string(),
  missing: z.array(z.object({ kind: ReceiptKind, text: z.string().max(300), pinned: z.boolean().optional() })).max(40),
  /** Missing items not named (past the 40 listed). */
  more: z.number().int().nonnegative(),
});
export type ReceiptView = z.infer<typeof ReceiptView>;

export const CompactionItem = z.object({
  kind: z.literal('compaction'),
  id,
  /** The headline in plain words: "Compacted: 85k → 22k tokens, freed 63k." */
  text: z.string(),
  freedTokens: z.number(),
  /** How long the compaction took, and what its summary request cost in US dollars (absent: unknown or no model call). */
  durationMs: z.number().nonnegative().optional(),
  cost: z.number().nonnegative().optional(),
  /** What the context kept, in plain words: "kept: summary + last 2 turns". */
  kept: z.string().optional(),
  /** The summary (markdown), shown by View summary. */
  summary: z.string().optional(),
  /** Undo is offered (the newest compaction, stored, no turn running); false shows it disabled. */
  canUndo: z.boolean().optional(),
  /** Set once the compaction was undone. */
  undone: z.boolean().optional(),
  details: CompactionDetails.optional(),
  receipt: ReceiptView.optional(),
});
/** A compaction in progress: "Compacting… (summarizing 42 messages)" with Cancel. */
export const CompactingItem = z.object({ kind: z.literal('compacting'), id, text: z.string() });
/** A line across the chat: what is above it is no longer in the model's context (compaction, restore, clear). */
export const DividerItem = z.object({ kind: z.literal('divider'), id, text: z.string() });
/** The summary the context starts with after a compaction (never shown as a user bubble). */
export const SummaryItem = z.object({
  kind: z.literal('summary'),
  id,
  /** The model's summary (markdown); empty when the history was compacted without a model. */
  text: z.string(),
  /** User instructions and pins carried verbatim with it. */
  carried: z.array(z.string()).max(200),
});
/** One file a turn changed, in its "Changes in this turn" list. */
export const ChangedFile = z.object({
  path: z.string().max(4096),
  change: z.enum(['created', 'modified']),
  added: z.number().int().nonnegative().optional(),
  removed: z.number().int().nonnegative().optional(),
  /** False: its content before the turn was not kept (too large, unreadable); a restore leaves it. */
  restorable: z.boolean(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;
/** The files a turn changed, each opening a diff, and Restore checkpoint (files + conversation to before the turn). */
export const ChangesItem = z.object({
  kind: z.literal('changes'),
  id,
  /** The stored turn number the checkpoint belongs to. */
  turn: z.number().int().positive(),
  files: z.array(ChangedFile).max(1000),
  /** Set once this checkpoint (or an earlier turn's) was restored: it cannot be restored again. */
  restored: z.boolean().optional(),
  /** What the restore did, in words ("2 files restored; kept your changes to a.txt"). */
  note: z.string().max(2000).optional(),
});
export const ChatItem = z.discriminatedUnion('kind', [
  UserItem,
  AssistantItem,
  ToolItem,
  ApprovalItem,
  NoticeItem,
  CompactionItem,
  CompactingItem,
  DividerItem,
  SummaryItem,
  ChangesItem,
]);
export type ChatItem = z.infer<typeof ChatItem>;
export type ChatItemOf<K extends ChatItem['kind']> = Extract<ChatItem, { kind: K }>;

/** One change to the transcript. `delta` appends text to a field of an existing item. */
export const ChatOp = z.discriminatedUnion('op', [
  z.object({ op: z.literal('append'), item: ChatItem }),
  z.object({ op: z.literal('update'), item: ChatItem }),
  z.object({ op: z.literal('delta'), id, field: z.enum(['text', 'reasoning', 'output']), text: z.string() }),
  z.object({ op: z.literal('remove'), id }),
  /** Inserts a new item before an existing one (appends when `before` is unknown). */
  z.object({ op: z.literal('insert'), item: ChatItem, before: id }),
]);
export type ChatOp = z.infer<typeof ChatOp>;
