import type { SessionSpend } from '../context/cost';
import type { Message } from '../providers/types';

/** A row of the session list. Times are epoch milliseconds; `bytes` = transcript + stored results. */
export interface SessionSummary {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  bytes: number;
  /** What the session's model requests spent; undefined when nothing is recorded (a new or pre-0.2 session). */
  spend?: SessionSpend;
}

/** One transcript entry as stored: never rewritten by compaction. */
export interface StoredMessage {
  seq: number;
  turn: number;
  message: Message;
  /** Token count supplied by the context engine when the message was appended (null if none was given). */
  tokens: number | null;
  contentHash: string | null;
  /** Tokenizer family `tokens` was counted with, and whether it is an exact count (null if not given). */
  tokenFamily: string | null;
  tokensExact: boolean | null;
  /** What the count is mostly made of (a content class) and whether it is mostly runs of one character (null if not given). */
  tokenClass: string | null;
  tokenRepetitive: boolean | null;
  createdAt: number;
}

/** A persisted token count, in the shape a token ledger is seeded with. */
export interface StoredCount {
  hash: string;
  family: string;
  tokens: number;
  exact: boolean;
  /** Present when stored (since schema v5). */
  contentClass?: string;
  repetitive?: boolean;
}

/** Options of `appendTurn`. Arrays are parallel to the messages. */
export interface AppendTurnOptions {
  tokens?: ReadonlyArray<number | null | undefined>;
  contentHashes?: ReadonlyArray<string | null | undefined>;
  /** Tokenizer family of `tokens` (one per turn), so the counts can be seeded back on resume. */
  tokenFamily?: string;
  /** Whether each of `tokens` is an exact count (an estimate is seeded back as an estimate). */
  tokensExact?: ReadonlyArray<boolean | null | undefined>;
  /** What each of `tokens` is mostly made of (a content class), and whether it is mostly runs of one character. */
  tokenClasses?: ReadonlyArray<string | null | undefined>;
  tokensRepetitive?: ReadonlyArray<boolean | null | undefined>;
  /** Add these messages to the latest turn instead of starting a new one. */
  continueTurn?: boolean;
  /** Creation time (epoch ms); defaults to now. */
  at?: number;
}

export interface AppendedTurn {
  turn: number;
  firstSeq: number;
  lastSeq: number;
}

/**
 * `compaction` and `restore` snapshots are the session's resume view (the latest one wins);
 * `named` snapshots are saved history entries (reference 004 `/context save`) that can be restored.
 */
export type SnapshotKind = 'compaction' | 'named' | 'restore';

export interface SnapshotInfo {
  id: string;
  kind: SnapshotKind;
  createdAt: number;
  /** The last transcript seq this snapshot stands for; the resume view is the snapshot + messages after it. */
  throughSeq: number;
  tokens: number | null;
  description: string | null;
  summary: string | null;
  messageCount: number;
  windowStart: number | null;
  windowEnd: number | null;
}

export interface Snapshot extends SnapshotInfo {
  messages: Message[];
  /**
   * The token count each message was saved with (parallel to `messages`; null where none was given),
   * so a reopened compacted session's first meter needs no recount. Absent for older snapshots.
   */
  counts?: Array<StoredCount | null>;
}

export interface SaveSnapshotInput {
  kind?: SnapshotKind;
  messages: Message[];
  /** The token count of each message (parallel to `messages`), kept with the snapshot. */
  counts?: ReadonlyArray<StoredCount | null | undefined>;
  tokens?: number;
  /** Defaults to the session's last seq. */
  throughSeq?: number;
  description?: string;
  summary?: string;
  /** Default: earliest / latest message timestamp. */
  windowStart?: number;
  windowEnd?: number;
}

export interface CompactionInput {
  beforeTokens: number;
  afterTokens: number;
  beforeMessages: number;
  afterMessages: number;
  strategies: string[];
  summary?: string;
  firstKeptSeq?: number;
  durationMs?: number;
  /** What the compaction did to the context (a JSON value, stored as is; the store does not read it). */
  report?: unknown;
  /** The compacted view, saved as the new resume snapshot. */
  snapshot: { messages: Message[]; counts?: ReadonlyArray<StoredCount | null | undefined>; tokens?: number; throughSeq?: number };
}

export interface CompactionRecord {
  id: string;
  createdAt: number;
  beforeTokens: number;
  afterTokens: number;
  beforeMessages: number;
  afterMessages: number;
  strategies: string[];
  summary: string | null;
  firstKeptSeq: number | null;
  durationMs: number | null;
  snapshotId: string | null;
  /** The stored report (JSON value; validate before use), null for compactions recorded without one. */
  report: unknown;
}

/** The last clear of a session: context starts after `afterSeq`; nothing was deleted. */
export interface ClearMarker {
  clearedAt: number;
  afterSeq: number;
}

export interface Pin {
  id: string;
  text: string;
  seq: number | null;
  createdAt: number;
}

/** What a resumed session needs: its resume snapshot, the messages after it, marker and pins. */
export interface LoadedSession {
  session: SessionSummary;
  snapshot: Snapshot | undefined;
  tail: StoredMessage[];
  marker: ClearMarker | undefined;
  pins: Pin[];
  lastSeq: number;
  lastTurn: number;
}

export interface ContextWindowOptions {
  /** Default Date.now(). */
  now?: number;
  /** Rolling window length; undefined or 0 = off. */
  rollingWindowMs?: number;
}

/** The messages that form the model's context: since max(last clear, now − rolling window). */
export interface ContextView {
  snapshot: SnapshotInfo | undefined;
  messages: Message[];
  /** Transcript entries included after the snapshot (a subset of `messages`). */
  tail: StoredMessage[];
  /**
   * The stored token counts of `tail` (those stored with hash and family), each with the message object
   * it belongs to: seed the ledger with them, no recount and no rehash.
   */
  counts: Array<StoredCount & { message: Message }>;
  cutoffTime: number;
}

export interface ResultMeta {
  refId: string;
  sessionId: string;
  toolName: string;
  byteSize: number;
  lineCount: number;
  createdAt: number;
}

export interface RetentionReport {
  deleted: string[];
  freedBytes: number;
  totalBytes: number;
  capBytes: number;
  /** True when everything left over the cap is protected (referenced by a live snapshot). */
  overCap: boolean;
}

export interface CalibrationFactor {
  model: string;
  factor: number;
  samples: number;
  updatedAt: number;
}
