/**
 * View models the host sends to the side panel: plain JSON, already formatted where text is shown,
 * never SDK or vscode objects; the chat's items are `chat-items.ts`. Browser-safe: imports nothing but zod
 * and pure data.
 */
import { z } from 'zod';
import { PROVIDER_IDS } from '../common/provider-catalogue';
import { ChatItem } from './chat-items';

export * from './chat-items';

/** A provider id: one of the provider catalogue's. */
export const ProviderName = z.enum(PROVIDER_IDS);
export type ProviderName = z.infer<typeof ProviderName>;

/** One provider the first-run view offers: its id and the option's text (from the host's catalogue). */
export const ProviderChoice = z.object({ id: ProviderName, label: z.string() });
export type ProviderChoice = z.infer<typeof ProviderChoice>;

export const ConfigView = z.object({
  provider: z.string(),
  /** Every provider the user can choose, in the catalogue's order. */
  providers: z.array(ProviderChoice),
  model: z.string(),
  /** Whether an API key is available (SecretStorage or environment); null while unknown. */
  hasApiKey: z.boolean().nullable(),
  baseUrl: z.string().optional(),
  /** The session's model as the header's model picker button shows it (formatted by the host). */
  modelInfo: z
    .object({
      /** "200k" — the window budgeted to. */
      window: z.string(),
      /** True when the model is unknown and `window` was only assumed (the header says so). */
      windowAssumed: z.boolean().optional(),
      /** "$3 / $15 per M tokens" (input / output); absent when the model table has no price. */
      price: z.string().optional(),
      /** The thinking level when the model reasons and it is not off ("medium"). */
      thinking: z.string().optional(),
      /** The model accepts images: true / false from the model table; absent: unknown (a server's model). */
      images: z.boolean().optional(),
      /** "deprecated, retires 2026-11-30" or "retired"; absent for an active model. */
      lifecycle: z.string().max(80).optional(),
    })
    .optional(),
});
export type ConfigView = z.infer<typeof ConfigView>;

export const SessionView = z.object({
  id: z.string(),
  title: z.string(),
  /** Messages in the context (what the next request carries). */
  messageCount: z.number().int().nonnegative(),
  /** Messages in the stored transcript (compaction and clear keep them). */
  transcriptCount: z.number().int().nonnegative().optional(),
});
export type SessionView = z.infer<typeof SessionView>;

// ---------------------------------------------------------------- meter

export const MeterSegmentKey = z.enum(['system', 'rules', 'tools', 'deferredTools', 'summary', 'messages', 'toolResults', 'context']);
export const MeterSegment = z.object({
  key: MeterSegmentKey,
  label: z.string(),
  tokens: z.number().nonnegative(),
  /** Share of the effective window (the bar's whole width). */
  fraction: z.number().nonnegative(),
  /** "Messages: 41.2k tokens (21 %)" — tooltip and aria-label. */
  title: z.string(),
});
export type MeterSegment = z.infer<typeof MeterSegment>;

export const MeterView = z.object({
  model: z.string(),
  /** The model's whole context window. */
  window: z.number().nonnegative(),
  /** What the model can take as input (window − output reservation − buffer): the bar's width, every percent's denominator. */
  effectiveWindow: z.number().nonnegative(),
  used: z.number().nonnegative(),
  /** used / effectiveWindow as a whole percent (aria-valuenow). */
  percent: z.number().nonnegative(),
  segments: z.array(MeterSegment),
  /** The reservation for the answer and the buffer: outside the effective window, so not on the bar. */
  output: z.object({ tokens: z.number().nonnegative(), title: z.string() }),
  free: z.object({ tokens: z.number(), fraction: z.number().nonnegative(), title: z.string() }),
  /** The compact and block thresholds (fractions of the effective window; 0: none). */
  markers: z.object({ compact: z.number().nonnegative(), block: z.number().nonnegative() }),
  /** "2.4k / 23.4k (10 %)": used of the effective window. */
  usedLabel: z.string(),
  /** "10 % of the 23.4k this model can take": the percent with its denominator named. */
  shareLabel: z.string(),
  confirmed: z.boolean(),
  /** "from the server", "31.2k from the server + 1.4k estimated (±0.3k)" or "estimated ±x %" */
  accuracy: z.string(),
  cacheLabel: z.string().nullable(),
  deferredLabel: z.string().nullable(),
  /** Where the window figure came from ("window reported by the server", "window from settings", …). */
  windowLabel: z.string().nullable().optional(),
  /** "freed 117k" and when (epoch ms): the panel shows it for a while after a compaction. */
  freed: z.object({ label: z.string(), at: z.number() }).nullable(),
  status: z.enum(['ok', 'note', 'compact', 'block', 'final']),
  /** Why auto-compaction is paused (the loop breaker), when it is. */
  pausedReason: z.string().nullable(),
  /** "31k to compact" (the distance to the compact threshold); null while paused or unknown. */
  untilCompactLabel: z.string().nullable().optional(),
  /** "$0.042 this turn · $1.27 session · cache saved $0.31"; null before any priced request. */
  costLabel: z.string().nullable().optional(),
  /** The details view: each component (tokens, %), reservation, free, thresholds, the window's source, the estimate's band. */
  details: z.array(z.object({ label: z.string(), value: z.string() })).optional(),
});
export type MeterView = z.infer<typeof MeterView>;

// ---------------------------------------------------------------- work so far (the work ledger)

/** The work ledger as the panel's "Work so far" section shows it; lists newest first. */
export const LedgerView = z.object({
  files: z.array(z.object({ path: z.string(), action: z.enum(['read', 'created', 'modified', 'deleted']), turn: z.number().int() })),
  commands: z.array(z.object({ command: z.string(), exitCode: z.number().int().nullable(), cwd: z.string(), turn: z.number().int() })),
  errors: z.array(z.object({ tool: z.string(), firstLine: z.string(), turn: z.number().int() })),
  plan: z.array(z.object({ text: z.string(), status: z.enum(['open', 'in_progress', 'done']) })),
  decisions: z.array(z.object({ text: z.string(), by: z.enum(['user', 'model']) })),
  /** "12 older file entries, 3 commands rolled up" when the bounded lists rolled up; null otherwise. */
  rolledUp: z.string().nullable(),
  /** "3 files · 2 commands · 1 error · plan 1/3 done" — the closed section's line. */
  headline: z.string(),
  empty: z.boolean(),
});
export type LedgerView = z.infer<typeof LedgerView>;

// ---------------------------------------------------------------- history

export const HistoryEntry = z.object({
  id: z.string(),
  title: z.string(),
  /** "2 h ago", "yesterday", "22 Nov": relative, by the host (`formatRelativeDate`). */
  date: z.string(),
  messageCount: z.number().int().nonnegative(),
  /** "1.2 MB" */
  size: z.string(),
  current: z.boolean(),
  /** What the session spent: "$0.42" or "cost unknown", and its breakdown (tooltip); absent when nothing is recorded. */
  cost: z.object({ label: z.string(), title: z.string() }).optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** What a timeline entry's Restore asks the host for (each an existing intent, carried as data). */
export const RewindAction = z.discriminatedUnion('type', [
  z.object({ type: z.literal('checkpoint/restore'), turn: z.number().int().positive() }),
  z.object({ type: z.literal('compaction/undo') }),
  z.object({ type: z.literal('clear/undo') }),
  z.object({ type: z.literal('snapshot/restore'), id: z.string().min(1).max(200) }),
]);
export type RewindAction = z.infer<typeof RewindAction>;

/**
 * One rewind point of the current session (a turn's checkpoint, a compaction, a clear, a saved
 * snapshot), in the person's words: what happened (`title`, `detail`) and what Restore does (`restores`).
 * No `action`: it can no longer be restored (`restores` says why).
 */
export const TimelineEntry = z.object({
  id: z.string(),
  kind: z.enum(['checkpoint', 'compaction', 'clear', 'snapshot']),
  title: z.string(),
  date: z.string(),
  detail: z.string(),
  restores: z.string(),
  action: RewindAction.optional(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const HistoryView = z.object({
  sessions: z.array(HistoryEntry),
  /** The current session's rewind points, newest first. */
  timeline: z.array(TimelineEntry),
});
export type HistoryView = z.infer<typeof HistoryView>;

// ---------------------------------------------------------------- the whole panel

export const SnapshotView = z.object({
  protocolVersion: z.number().int(),
  extensionVersion: z.string(),
  workspaceName: z.string().nullable(),
  storageAvailable: z.boolean(),
  /** Shown next to the session when storage is degraded ("read-only: another window…"). */
  storageNote: z.string().optional(),
  trusted: z.boolean(),
  session: SessionView,
  config: ConfigView,
  /** The transcript as the panel shows it (absent: empty). */
  items: z.array(ChatItem).optional(),
  /** Older items exist before the first of `items` (the panel asks for them with `transcript/older`). */
  hasOlder: z.boolean().optional(),
  meter: MeterView.nullable().optional(),
  /** A turn is running (the Stop button shows). */
  running: z.boolean().optional(),
  /** A compaction is running (Send, Compact and Clear wait for it). */
  compacting: z.boolean().optional(),
  /** The "Work so far" section (absent: nothing recorded yet). */
  ledger: LedgerView.nullable().optional(),
});
export type SnapshotView = z.infer<typeof SnapshotView>;
