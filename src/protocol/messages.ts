/**
 * The one shared, versioned protocol between the extension host and the side panel webview.
 * Every message is an `area/verb` member of a zod discriminated union; both sides validate what they
 * receive. Browser-safe: imports nothing but zod. View models only — never SDK or vscode objects.
 */
import { z } from 'zod';

/** Bumped when a message changes shape incompatibly; the host refuses a webview of another version. */
export const PROTOCOL_VERSION = 1;

// ---------------------------------------------------------------- view models (host → webview)

export const ConfigView = z.object({
  provider: z.string(),
  model: z.string(),
  /** Whether an API key is available (SecretStorage or environment); null while unknown. */
  hasApiKey: z.boolean().nullable(),
  baseUrl: z.string().optional(),
});
export type ConfigView = z.infer<typeof ConfigView>;

export const SessionView = z.object({
  id: z.string(),
  title: z.string(),
  messageCount: z.number().int().nonnegative(),
});
export type SessionView = z.infer<typeof SessionView>;

export const SnapshotView = z.object({
  protocolVersion: z.number().int(),
  extensionVersion: z.string(),
  workspaceName: z.string().nullable(),
  storageAvailable: z.boolean(),
  trusted: z.boolean(),
  session: SessionView,
  config: ConfigView,
});
export type SnapshotView = z.infer<typeof SnapshotView>;

// ---------------------------------------------------------------- webview → host

export const WebviewReady = z.object({
  type: z.literal('webview/ready'),
  protocolVersion: z.number().int(),
});

/** The webview reports its own failure (a render error, a rejected host message) so the host logs it. */
export const WebviewError = z.object({
  type: z.literal('webview/error'),
  message: z.string().max(10_000),
});

/** A command the user ran from the panel (buttons), mapped to the same code as the palette. */
export const WebviewRunCommand = z.object({
  type: z.literal('command/run'),
  command: z.enum(['showLog', 'focusPanel']),
});

export const WebviewToHost = z.discriminatedUnion('type', [WebviewReady, WebviewError, WebviewRunCommand]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;

// ---------------------------------------------------------------- host → webview

export const SessionSnapshot = z.object({
  type: z.literal('session/snapshot'),
  snapshot: SnapshotView,
});

/** An error the panel shows in its banner. `detail` is optional technical text. */
export const HostError = z.object({
  type: z.literal('host/error'),
  message: z.string(),
  detail: z.string().optional(),
});

export const HostToWebview = z.discriminatedUnion('type', [SessionSnapshot, HostError]);
export type HostToWebview = z.infer<typeof HostToWebview>;

export type MessageOf<U extends { type: string }, T extends U['type']> = Extract<U, { type: T }>;

// ---------------------------------------------------------------- parsing

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

/** Validates an unknown value as a message of `schema`; never throws; the error names the bad fields. */
export function parseMessage<T>(schema: z.ZodType<T>, raw: unknown): ParseResult<T> {
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, message: r.data };
  const type =
    raw && typeof raw === 'object' && 'type' in raw && typeof (raw as { type: unknown }).type === 'string'
      ? (raw as { type: string }).type
      : '(no type)';
  const issues = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '<root>'}: ${i.message}`)
    .join('; ');
  return { ok: false, error: `Invalid message ${JSON.stringify(type).slice(0, 80)}: ${issues}` };
}

export const parseWebviewMessage = (raw: unknown) => parseMessage(WebviewToHost, raw);
export const parseHostMessage = (raw: unknown) => parseMessage(HostToWebview, raw);
