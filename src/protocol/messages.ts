/**
 * The one shared, versioned protocol between the extension host and the side panel webview.
 * Every message is an `area/verb` member of a zod discriminated union; both sides validate what they
 * receive. Browser-safe: imports nothing but zod and pure data. View models only — never SDK or vscode objects.
 */
import { z } from 'zod';
import { MAX_IMAGES_PER_MESSAGE } from '../common/images';
import { Mention, MentionChip } from './mentions';
import { ReplyMessage, RequestMessage } from './requests';
import {
  ChatItem,
  ChatOp,
  ImageAttachment,
  HistoryView,
  LedgerView,
  MeterView,
  ProviderName,
  SessionView,
  SnapshotView,
} from './view-models';

export * from './mentions';
export * from './view-models';
export * from './requests';

/** Bumped when a message changes shape incompatibly; the host refuses a webview of another version. */
export const PROTOCOL_VERSION = 5;

const msg = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) => z.object({ type: z.literal(type), ...shape });
const refId = z.string().min(1).max(200);
/** A snapshot's optional description (the panel's Save button and the palette's input box). */
export const SnapshotName = z.string().trim().max(200);

// ---------------------------------------------------------------- webview → host

/** Commands the panel may run by name (the same code as the palette). */
export const PanelCommand = z.enum(['showLog', 'focusPanel', 'setApiKey', 'selectModel', 'openSettings']);
export type PanelCommand = z.infer<typeof PanelCommand>;

export const WebviewToHost = z.discriminatedUnion('type', [
  msg('webview/ready', { protocolVersion: z.number().int() }),
  /** A question the host answers with a `reply` of the same id (`requests.ts`: session list, older page, Test connection, @ picker). */
  RequestMessage,
  /** The webview reports its own failure (a render error, a rejected host message) so the host logs it. */
  msg('webview/error', { message: z.string().max(10_000) }),
  msg('prompt/submit', {
    text: z.string().trim().min(1).max(500_000),
    /** Pasted or dropped images; the host refuses them for a model that takes none. */
    images: z.array(ImageAttachment).max(MAX_IMAGES_PER_MESSAGE).optional(),
    /** What the prompt's `@` words name; the host resolves them into context attached to the message. */
    mentions: z.array(Mention).max(50).optional(),
  }),
  /**
   * Edit-and-resend: replaces the last turn (its prompt and the answer to it leave the model's context)
   * with this prompt. Refused while a turn runs.
   */
  msg('prompt/resend', {
    text: z.string().trim().min(1).max(500_000),
    images: z.array(ImageAttachment).max(MAX_IMAGES_PER_MESSAGE).optional(),
    mentions: z.array(Mention).max(50).optional(),
  }),
  /** [Retry] on an error block: the failed last turn runs again, without a second copy of its prompt. */
  msg('prompt/retry', {}),
  /** A mention chip in a sent prompt was clicked: open that workspace file (or reveal that folder). */
  msg('mention/open', { path: z.string().min(1).max(1_000), line: z.number().int().min(1).optional() }),
  msg('prompt/stop', {}),
  msg('context/compact', { focus: z.string().max(10_000).optional() }),
  msg('context/clear', {}),
  /** Undoes the last clear while nothing came after it (History's timeline). */
  msg('clear/undo', {}),
  msg('session/new', {}),
  msg('session/open', { id: refId }),
  msg('session/rename', { id: refId, title: z.string().trim().min(1).max(200) }),
  msg('session/delete', { id: refId }),
  msg('snapshot/save', { name: SnapshotName.optional() }),
  msg('snapshot/restore', { id: refId }),
  msg('compaction/undo', {}),
  /** A compaction card's receipt: pin missing item `index` of card `id` (it is carried in every request from then on). */
  msg('receipt/pin', { id: refId, index: z.number().int().min(0).max(39) }),
  /** Cancels the running compaction: its summary request is aborted and the context stays as it was. */
  msg('compaction/cancel', {}),
  msg('approval/respond', {
    id: refId,
    approved: z.boolean(),
    forSession: z.boolean().optional(),
    reason: z.string().max(2_000).optional(),
  }),
  /** Show the proposed edit of a pending approval in VS Code's diff editor. */
  msg('approval/diff', { id: refId }),
  msg('result/open', { refId }),
  /** Opens VS Code's diff editor: a file before turn `turn` and now. */
  msg('checkpoint/diff', { turn: z.number().int().positive(), path: z.string().min(1).max(4096) }),
  /** Restores the files of turn `turn` and rewinds the conversation to before it (the panel confirmed it). */
  msg('checkpoint/restore', { turn: z.number().int().positive() }),
  msg('config/update', { provider: ProviderName.optional(), baseUrl: z.string().max(2_000).optional() }),
  msg('command/run', { command: PanelCommand }),
  /** A code block's Copy button: the host writes the text to the clipboard. */
  msg('code/copy', { text: z.string().max(2_000_000) }),
  /** A code block's Insert button: at the active editor's cursor, or in a new untitled editor. */
  msg('code/insert', { text: z.string().max(2_000_000), language: z.string().max(40).optional() }),
]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;

// ---------------------------------------------------------------- host → webview

export const HostToWebview = z.discriminatedUnion('type', [
  /** Everything the panel shows; sent on ready, on session switch, and when config changes. */
  msg('session/snapshot', { snapshot: SnapshotView }),
  /** The answer to the webview's `request` of the same id. */
  ReplyMessage,
  /** Transcript changes, batched (≤ 30 messages a second while text streams). */
  msg('chat/ops', { ops: z.array(ChatOp).max(10_000) }),
  msg('turn/state', { running: z.boolean(), compacting: z.boolean().optional() }),
  /** The work ledger changed ("Work so far"). */
  msg('ledger/update', { ledger: LedgerView }),
  /** The last intent worked: the banner's error about an earlier one no longer applies. */
  msg('host/ok', {}),
  /** The session's title and message count changed (after a turn, a rename). */
  msg('session/info', { session: SessionView }),
  msg('context/usage', { meter: MeterView }),
  /** The history changed (an action renamed, saved, deleted…); the webview's `session/list` request asks for it too. */
  msg('history/list', { history: HistoryView }),
  /** An error the panel shows in its banner. `detail` is optional technical text. */
  msg('host/error', { message: z.string(), detail: z.string().optional() }),
  /** "Add Selection to Headroom": put this mention into the composer and focus it. */
  msg('mention/add', { mention: Mention }),
  /** A checkpoint restore rewound this prompt: it goes back into the message box, to edit and send again. */
  msg('prompt/fill', { text: z.string().max(2_000_000), mentions: z.array(MentionChip).max(50).optional() }),
]);
export type HostToWebview = z.infer<typeof HostToWebview>;

export type MessageOf<U extends { type: string }, T extends U['type']> = Extract<U, { type: T }>;
export type { ChatItem };

// ---------------------------------------------------------------- parsing

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

/** Validates an unknown value as a message of `schema`; never throws; the error names the bad fields. */
export function parseMessage<T>(schema: z.ZodType<T>, raw: unknown): ParseResult<T> {
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, message: r.data };
  const type =
    raw && typeof raw === 'object' && 'type' in raw && typeof raw.type === 'string' ? (raw as { type: string }).type : '(no type)';
  const issues = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '<root>'}: ${i.message}`)
    .join('; ');
  return { ok: false, error: `Invalid message ${JSON.stringify(type).slice(0, 80)}: ${issues}` };
}

export const parseWebviewMessage = (raw: unknown) => parseMessage(WebviewToHost, raw);
export const parseHostMessage = (raw: unknown) => parseMessage(HostToWebview, raw);
