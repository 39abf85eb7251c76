/**
 * The host-environment port: everything the session service needs from the editor it runs in, and
 * nothing else. `platform/session-host.ts` implements it with `vscode`; unit tests implement it with
 * a temp folder and the fake provider. Pure types (no vscode).
 */
import type { MentionSources } from '../tools/mentions/resolve-mentions';
import type { ProviderSettings } from '../context/provider-settings';
import type { ContextSettings } from '../context/settings';
import type { ServerReportedWindow } from '../context/models';
import type { LmChatPort } from '../providers/lm-chat';
import type { ReleasedKey } from '../providers/key-release';
import type { ProviderId } from '../providers/types';
import type { ApprovalPort, ExternalToolPort, WorkspacePort } from '../tools/ports';

/** `headroom.summarizerModel`, `headroom.compaction.keepTurns`, `headroom.compaction.resummarizeEvery`, `headroom.compaction.native`, validated. */
export interface CompactionSettings {
  summarizerModel: string | undefined;
  keepTurns: number;
  resummarizeEvery: number;
  /** The provider's own compaction may write the summary where the model declares it (default true). */
  native: boolean;
}

/**
 * The settings, read fresh on every call (the user can change them at any time). Each reader
 * validates and never throws: bad values fall back to their defaults.
 */
export interface HostSettings {
  provider(): ProviderSettings;
  /** The context settings and the errors of the values that were rejected (the service reports them once). */
  context(): { settings: ContextSettings; errors: string[] };
  compaction(): CompactionSettings;
  /** Model requests per turn. */
  maxIterations(): number;
  /** External tools (names or globs) that run without asking. */
  externalToolsAllow(): string[];
  /** Workspace files (globs) that may reach the model although they look like secrets. */
  secretFilesAllow(): string[];
}

/** The workspace folder the agent works on. */
export interface HostFolder {
  /** Absolute path of the folder (rules files are read from it). */
  root: string;
  /** The tools' view of the folder (reads, edits, commands, search), confined to it. */
  workspace(): WorkspacePort;
}

/** Where the extension's own files are. */
export interface HostAssets {
  /** The sql.js wasm binary the store loads. */
  wasmPath: string;
  /** The tokenizer worker script (a missing one means byte estimates, reported through `log.warn`). */
  tokenWorkerPath: string;
}

/** The log; lines a person may want to read later, never shown as notifications. */
export interface HostLog {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * What the session service asks of its host. Every member is cheap and synchronous unless it says
 * otherwise; none throws, except `folder().workspace()`, which may (the turn reports it).
 */
export interface HostEnvironment {
  /** The folder for this workspace's session store; undefined keeps sessions in memory only. */
  readonly storageRoot: string | undefined;
  readonly assets: HostAssets;
  /** The first workspace folder, or undefined when none is open. */
  folder(): HostFolder | undefined;
  /** The workspace's name, for the system prompt. */
  workspaceName(): string | undefined;
  /** Whether the workspace is trusted (Restricted Mode sends nothing). */
  trusted(): boolean;
  readonly settings: HostSettings;
  readonly log: HostLog;
  /** Tells the person (a notification) and logs it. Never waits for an answer. */
  warn(message: string): void;
  /**
   * Releases the provider's API key for one target (`providers/key-release.ts`: may ask the person
   * about an origin it was not entered for; with `ask: false` it never asks and withholds the key
   * where it would have). Never rejects.
   */
  releaseKey(provider: ProviderId, baseUrl: string | undefined, options?: { ask?: boolean }): Promise<ReleasedKey>;
  /** The approval port the tools ask before edits and commands. */
  readonly approvals: ApprovalPort;
  /** The editor's own tools (e.g. `vscode.lm.tools`), offered to the model behind the allow list. */
  externalTools(): ExternalToolPort | undefined;
  /** The editor's language models, for the 'vscode-lm' provider (undefined outside VS Code). */
  languageModel(model: string): LmChatPort | undefined;
  /** The input limit the editor reports for one of its language models. Never rejects. */
  languageModelWindow(model: string): Promise<ServerReportedWindow | undefined>;
  /** The editor's selection and diagnostics for `@selection` and `@problems` (undefined: none to offer). */
  readonly editorSources?: EditorSources;
}

/** What `@selection` and `@problems` read from the editor when a prompt is sent. May reject. */
export type EditorSources = Pick<MentionSources, 'selection' | 'problems'>;
