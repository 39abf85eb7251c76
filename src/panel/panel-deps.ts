/**
 * The seam between the panel and the rest of Headroom: what the composition root supplies. Every
 * function is the same code the palette command runs. Pure types (no vscode import beyond types).
 */
import type * as vscode from 'vscode';
import type { PanelCommand, ProviderName, SnapshotView } from '../protocol/messages';
import type { ApprovalDecision } from '../tools/ports';
import type { HistoryData } from './history-view';

/**
 * User intents from the panel. Each may reject: the panel shows the error in its banner and logs it.
 * After `clear`, `newSession`, `openSession`, `restoreSnapshot` and `undoCompaction` the host calls
 * `ChatViewProvider.loadTranscript` (and `pushBudget`) with the new state; the panel then refreshes
 * the history list itself.
 */
export interface PanelActions {
  /** Starts a turn with this prompt; resolves once it is accepted (the turn reports through pushEvent). */
  submitPrompt(text: string): Promise<void>;
  /** Aborts the running turn, if any. */
  stop(): void | Promise<void>;
  /** Compacts now, optionally with focus instructions (`/compact focus…`). */
  compact(focus?: string): Promise<void>;
  clear(): Promise<void>;
  newSession(): Promise<void>;
  /** Sessions of this workspace and the current session's snapshots. */
  listSessions(): Promise<HistoryData>;
  openSession(id: string): Promise<void>;
  renameSession(id: string, title: string): Promise<void>;
  deleteSession(id: string): Promise<void>;
  saveSnapshot(name?: string): Promise<void>;
  restoreSnapshot(id: string): Promise<void>;
  undoCompaction(): Promise<void>;
  /** Opens an offloaded tool result in a read-only editor. */
  openResult(refId: string): Promise<void>;
  /** The user's answer to the approval the host showed with `ChatViewProvider.showApproval(id, …)`. */
  approve(id: string, decision: ApprovalDecision): void | Promise<void>;
  /** Shows a pending edit in VS Code's diff editor (current vs proposed). */
  showDiff(id: string): Promise<void>;
  /** First-run choices: provider and base URL (written to `headroom.*` settings). */
  updateConfig(change: { provider?: ProviderName; baseUrl?: string }): Promise<void>;
  /** Runs a Headroom command by its short name (`headroom.<name>`). */
  runCommand(name: PanelCommand): Promise<void>;
}

/** What the panel needs from the rest of the extension; supplied by the composition root. */
export interface ChatViewDeps extends PanelActions {
  readonly extensionUri: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  /**
   * The static facts of the snapshot (version, workspace, trust, session, config with hasApiKey); may
   * be async (reads secrets). The panel fills in `items`, `meter` and `running` itself.
   */
  snapshot(): Promise<SnapshotView>;
}
