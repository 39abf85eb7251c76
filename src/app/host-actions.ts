/**
 * The one actions interface: what a user can do to Headroom, whether from the panel (its webview
 * messages are dispatched to these) or the command palette (`commands/palette-commands.ts` calls
 * these after its pickers). Neither goes through the other. Grouped by what they act on; a group
 * that needs nothing from the editor is the session service's owner itself (`pins`), the others are
 * implemented in `platform/vscode-host-actions.ts`. Pure types, no vscode.
 */
import type { ContextUsage } from '../agent/events';
import type { ConnectionResult } from '../providers/connection-test';
import type { Message } from '../providers/types';
import type { Mention, MentionOption, PanelCommand, ProviderName } from '../protocol/messages';
import type { ResultMeta } from '../store/types';
import type { ApprovalDecision } from '../tools/ports';
import type { TurnChanges } from './checkpoint-actions';
import type { PinInfo } from './pins-snapshots';
import type { PromptImage } from './prompt-message';
import type { SessionHistory } from './sessions';
import type { SessionHits } from './workspace-search';

export type { PinInfo } from './pins-snapshots';
export type { TurnChanges, RestoreOutcome, OverwriteAnswer } from './checkpoint-actions';
export type { PromptImage } from './prompt-message';
export type { SessionHistory } from './sessions';

export interface PromptActions {
  /**
   * Starts a turn with this prompt; resolves once it is accepted (the turn reports through events).
   * `mentions` are resolved by the host into context attached to the message.
   */
  submit(text: string, images?: readonly PromptImage[], mentions?: readonly Mention[]): Promise<void>;
  /** Edit-and-resend: the last turn leaves the context and this prompt is sent instead. Refused while a turn runs. */
  resend(text: string, images?: readonly PromptImage[], mentions?: readonly Mention[]): Promise<void>;
  /** Runs the failed last turn again (Retry), without a second copy of its prompt. Refused when no turn failed or one runs. */
  retry(): Promise<void>;
  /** Aborts the running turn, if any. */
  stop(): void | Promise<void>;
  /** The `@` picker's rows: workspace files and folders matching `query`. Never rejects. */
  searchMentions(query: string): Promise<MentionOption[]>;
  /** Opens a mention chip's workspace file (at `line`) or reveals its folder; refuses paths outside the folder. */
  openMention(path: string, line?: number): Promise<void>;
  /** Adds the active editor's selection to the panel's prompt as a mention and shows the panel. */
  addSelection(): Promise<void>;
}

/**
 * After an action that replaces the conversation (`create`, `open`, `delete`, `clear`) the panel
 * shows the new transcript, meter and history before the promise resolves.
 */
export interface SessionActions {
  create(): Promise<void>;
  /** Sessions of this workspace and the current session's snapshots. */
  list(): Promise<SessionHistory>;
  open(id: string): Promise<void>;
  rename(id: string, title: string): Promise<void>;
  delete(id: string): Promise<void>;
  clear(): Promise<void>;
  /** Undoes the last clear while nothing came after it; the chat marks the context it gives back. */
  undoClear(): Promise<void>;
}

/**
 * The context the model sees. After `restoreSnapshot` or `undoCompaction` the panel keeps the chat
 * and marks what is no longer in the model's context before the promise resolves.
 */
export interface ContextActions {
  /** Compacts now, optionally with focus instructions (`/compact focus…`); says so when there is nothing to compact. */
  compact(focus?: string): Promise<void>;
  /** Cancels the running compaction: its summary request is aborted and the context stays as it was. */
  cancelCompaction(): void;
  undoCompaction(): Promise<void>;
  saveSnapshot(name?: string): Promise<void>;
  restoreSnapshot(id: string): Promise<void>;
  /** The messages the model sees now (Pin… offers recent prompts from them). */
  messages(): readonly Message[];
  /** Current context usage as the gate measures it. */
  measure(): ContextUsage;
}

/** Texts kept verbatim through every compaction of the session. */
export interface PinActions {
  pins(): Promise<readonly PinInfo[]>;
  /** Pins a text for this session (rejects empty or over-long text). */
  pin(text: string): Promise<void>;
  unpin(id: string): Promise<void>;
}

export interface CheckpointActions {
  /** The files the last turn changed (its checkpoint); undefined when it changed none. */
  turnChanges(): TurnChanges | undefined;
  /** Opens VS Code's diff editor between a file before turn `turn` (read-only) and the file now. */
  openDiff(turn: number, path: string): Promise<void>;
  /**
   * Restores turn `turn`'s files and rewinds the conversation to before it (the caller confirmed);
   * asks first about files changed since the turn. The chat keeps everything and shows a divider.
   */
  restore(turn: number): Promise<void>;
}

export interface ResultActions {
  /**
   * Opens a stored (offloaded) tool result in a read-only editor; a ref id not listed opens untitled.
   * With `find` (a search's words) the editor lands on its first hit, selected.
   */
  open(refId: string, find?: string, sessionId?: string): Promise<void>;
  /**
   * Searches the whole transcript and stored results of every session: the current session first,
   * then the others newest first, one session's hits at a time; stops when `signal` aborts. A hit's
   * ref opens with `open` (with its session's id when that is not the current session).
   */
  searchHistory(query: string, signal: AbortSignal): AsyncIterable<SessionHits>;
  /** Stored tool results of this session, newest first (empty without a folder). */
  storedResults(): readonly ResultMeta[];
}

export interface ApprovalActions {
  /** The user's answer to the approval the panel showed (`ChatViewProvider.showApproval(id, …)`). */
  approve(id: string, decision: ApprovalDecision): void | Promise<void>;
  /** Shows a pending edit in VS Code's diff editor (current vs proposed). */
  showDiff(id: string): Promise<void>;
  /**
   * Answers the oldest approval still waiting (a keybinding has no card to point at); false when
   * nothing waits.
   */
  answerOldest(decision: ApprovalDecision): boolean;
}

export interface ConfigActions {
  /** First-run choices: provider and base URL (written to `headroom.*` settings). */
  update(change: { provider?: ProviderName; baseUrl?: string }): Promise<void>;
  /** First-run Test connection: one small request to the configured provider; never rejects. */
  testConnection(): Promise<ConnectionResult>;
  /** Asks for a provider and its API key and stores it (SecretStorage). */
  setApiKey(): Promise<void>;
  /** Asks for a model of the current provider and writes `headroom.model`. */
  selectModel(): Promise<void>;
  /** Runs a Headroom command by its short name (`headroom.<name>`), or opens Headroom's settings. */
  runCommand(name: PanelCommand): Promise<void>;
}

/**
 * User intents and the reads their pickers need. Each may reject with a message a person can act on;
 * the caller shows it (the panel in its banner, the palette in a notification).
 */
export interface HostActions {
  readonly prompt: PromptActions;
  readonly sessions: SessionActions;
  readonly context: ContextActions;
  readonly pins: PinActions;
  readonly checkpoints: CheckpointActions;
  readonly results: ResultActions;
  readonly approvals: ApprovalActions;
  readonly config: ConfigActions;
}
