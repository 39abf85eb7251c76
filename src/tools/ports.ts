/**
 * The ports through which tools reach the outside world. Tools never see the session, the
 * provider or `vscode`; the composition root hands them implementations of these interfaces
 * (`src/platform/` with vscode, `node-workspace.ts` for tests, benches and as a fallback).
 */
import type { ToolDefinition } from '../providers/types';
import type { HistoryQuery, HistorySearchResult } from './history-search';

/** What `WorkspacePort.stat` reports about a path. */
export interface FileStat {
  type: 'file' | 'directory' | 'other';
  size: number;
  mtimeMs: number;
}

/** One line that matched a text search. `line` is 1-based; `text` may be shortened by the port. */
export interface TextMatch {
  path: string;
  line: number;
  text: string;
}

export interface ReadFileOptions {
  /** Read at most this many bytes (the stat's `size` says how large the whole file is). */
  maxBytes?: number;
  /**
   * The absolute real path of a secret-looking file the user agreed to have read (from the
   * `SecretFileError` of an earlier attempt), or `'any'` for a reader whose result never reaches the
   * model (an edit's old content, shown to the user in the diff). Any other secret is refused.
   */
  allowSecret?: string;
}

export interface ListFilesOptions {
  /** Skip files matched by .gitignore files (and always skip `.git/`). */
  respectGitignore: boolean;
  /** Stop after this many files; the result then says `truncated: true`. */
  limit: number;
  signal?: AbortSignal;
}

export interface SearchTextOptions {
  /** Only search files whose workspace-relative path matches this glob. */
  glob?: string;
  maxResults: number;
  caseSensitive?: boolean;
  signal?: AbortSignal;
}

export interface RunCommandOptions {
  /** Absolute or workspace-relative directory; must be inside the workspace. */
  cwd?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Receives stdout and stderr as they arrive, decoded as UTF-8. */
  onOutput?: (chunk: string) => void;
}

export interface CommandResult {
  /** Exit code, or null when the process was killed. */
  exitCode: number | null;
  /** stdout and stderr interleaved in arrival order (the head is kept when it grows past the cap). */
  output: string;
  timedOut: boolean;
  aborted: boolean;
  /** Bytes of output dropped because the output passed the port's cap (0 normally). */
  droppedBytes: number;
}

/**
 * Editor/file-system access for tools. Every path argument is workspace-relative (an absolute path
 * inside the workspace is accepted too). Contract:
 * - `resolvePath` rejects (with a `HeadroomError` of kind `invalid_tool_input` whose message says
 *   the path is outside the workspace) any path that leaves the workspace root, including through
 *   `..`, an absolute path elsewhere, or a symbolic link pointing out; every other method resolves
 *   its paths through the same check.
 * - Methods reject with an Error whose message a model can act on (file not found, is a directory…).
 * - Returned paths are workspace-relative with forward slashes.
 */
export interface WorkspacePort {
  /** Absolute path of the workspace root. */
  readonly root: string;
  resolvePath(path: string): Promise<string>;
  /**
   * Reads a regular file as UTF-8. Special files (FIFOs, devices, sockets) are refused before they
   * are opened. With `maxBytes`, at most that many bytes are read (the text of that prefix, never
   * the whole file first); without it, a file over the port's own cap is refused. A file that looks
   * like a secret by its name or by the real file a link leads to (`secret-files.ts`) is refused with
   * a `SecretFileError`, unless `allowSecret` names it.
   */
  readFile(path: string, options?: ReadFileOptions): Promise<string>;
  /** `undefined` when nothing exists at the path. */
  stat(path: string): Promise<FileStat | undefined>;
  listFiles(glob: string, options: ListFilesOptions): Promise<{ files: string[]; truncated: boolean }>;
  /** Never searches a file that looks like a secret (the same policy as `readFile`). */
  searchText(pattern: string, options: SearchTextOptions): Promise<{ matches: TextMatch[]; truncated: boolean }>;
  /**
   * The workspace-relative path a write to `path` really lands on (links inside the workspace
   * resolved). Rejects with a `HeadroomError` ('invalid_tool_input') for a dangling link, a link
   * leading outside, a special file or a file used as a folder. Writing tools call it first and
   * name its answer in the approval; `writeFile` and `applyEdit` apply the same check themselves.
   */
  resolveWriteTarget(path: string): Promise<string>;
  /** Creates or overwrites a file (creating parent folders). */
  writeFile(path: string, content: string): Promise<void>;
  /** Replaces the whole content of an existing file as one (undoable, in an editor) edit. */
  applyEdit(path: string, newContent: string): Promise<void>;
  /** Runs a shell command. Resolves on exit, timeout or abort; rejects only if it cannot start. */
  runCommand(command: string, options: RunCommandOptions): Promise<CommandResult>;
}

/** Options for reading one page of a stored result. Offsets are in UTF-8 bytes, or in matching lines with `grep`. */
export interface ResultPageOptions {
  offset: number;
  limit: number;
  grep?: string;
}

/** One page of a stored result (see `pageBuffer` in `result-paging.ts` for the reference semantics). */
export interface ResultPage {
  toolName?: string;
  /** Byte size of the whole stored result. */
  totalBytes: number;
  /** Without grep: the text of the page. With grep: matching lines as `<line>: <text>`. */
  text: string;
  offset: number;
  /** Where the next page starts; undefined at the end. */
  nextOffset?: number;
  /** With grep: how many lines match in the whole result. */
  totalMatches?: number;
}

/**
 * Where offloaded tool output is kept (the result store). `put` resolves to the ref id the model
 * will pass to `read_result`; `page` resolves to undefined for an unknown ref id. A grep page stops
 * (rejects, kind 'aborted') when `signal` aborts.
 */
export interface ResultPort {
  put(entry: { toolName: string; toolCallId: string; content: string }): Promise<string>;
  page(refId: string, options: ResultPageOptions, signal?: AbortSignal): Promise<ResultPage | undefined>;
}

/** What the user is asked to approve. Edits carry the full old and proposed content for a diff view. */
export type ApprovalRequest =
  | {
      kind: 'edit';
      toolName: string;
      toolCallId: string;
      path: string;
      /** Current content, undefined when the file does not exist yet. */
      oldContent: string | undefined;
      newContent: string;
    }
  | { kind: 'command'; toolName: string; toolCallId: string; command: string; cwd: string }
  /** An external tool (extension or MCP server): it may do anything, so it asks like a command. */
  | { kind: 'tool'; toolName: string; toolCallId: string; origin: string; input: string }
  /**
   * Reading a file that looks like a secret: its content would go to the model's provider. `path` as
   * asked, `target` the real file (they differ when a link leads there), `reason` in words.
   */
  | { kind: 'secret'; toolName: string; toolCallId: string; path: string; target: string; reason: string };

/**
 * `forSession`: the user also allowed this exact command, this tool's edits, or reading this file, for the
 * rest of the session. `automatic`: allowed by the settings or an earlier "for this session" without asking
 * (no card was shown, so none is kept with the result).
 */
export type ApprovalDecision = { approved: true; forSession?: boolean; automatic?: true } | { approved: false; reason?: string };

/**
 * Asks the user to approve an edit or a command. Resolves with the decision; when `signal` aborts
 * it resolves `{approved: false}` (or rejects; tools treat a rejection as "not approved").
 */
export interface ApprovalPort {
  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

/** What a compaction freed, as reported to the model by `compact_context`. */
export interface CompactOutcome {
  beforeTokens: number;
  afterTokens: number;
  strategies: string[];
  /** Set when compaction was scheduled rather than run now (e.g. it runs after this tool batch). */
  note?: string;
}

/** Runs (or schedules) a compaction of the conversation. May reject; the tool reports the failure. */
export interface CompactPort {
  compact(request: { focus?: string }, signal: AbortSignal): Promise<CompactOutcome>;
}

/**
 * The session's whole history, for `search_history`: the transcript (every role) and the stored tool
 * results, in the context or not (see `searchTranscript` for the semantics). May reject; the tool
 * reports the failure.
 */
export interface HistorySearchPort {
  search(query: HistoryQuery, signal: AbortSignal): Promise<HistorySearchResult>;
}

/**
 * Tools that live outside Headroom (`vscode.lm.tools`, which includes MCP servers). `list` is cheap
 * and synchronous; `invoke` resolves to the tool's text output and may reject.
 */
export interface ExternalToolPort {
  list(): ExternalToolDefinition[];
  invoke(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

/** An external tool's definition plus where it comes from, as the approval names it. */
export interface ExternalToolDefinition extends ToolDefinition {
  /** E.g. `the MCP server "github"`; see `describeOrigin`. Undefined: "an external tool". */
  origin?: string;
}

/** The context a tool executes in. Never the session. */
export interface ToolContext {
  signal: AbortSignal;
  workspace: WorkspacePort;
  results: ResultPort;
  approve: ApprovalPort;
  /** False in an untrusted workspace: tools that mutate refuse. */
  trusted: boolean;
  /** Streams partial output (run_command) to the UI. */
  onOutput?: (chunk: string) => void;
  /** The live context budget, so paging tools can return what fits (absent outside a turn: no limit). */
  headroom?: HeadroomPort;
}

/**
 * How much more the context can take right now, measured exactly as the guard will measure the result
 * when it is admitted. Supplied per tool call by the loop (it sees the view as it is at that call).
 */
export interface HeadroomPort {
  /** Tokens a tool result may take and still be inlined (below the compact threshold); ≥ 0. Never throws. */
  remainingTokens(): number;
  /** Tokens `text` will count as a tool result of `toolName` (the safe count the guard uses). Never throws. */
  resultTokens(text: string, toolName: string): number;
  /** Asks for a compaction before the next model request (when even a small page does not fit). */
  requestCompaction(): void;
}

/** What `execute` sees: the caller's context plus the id of the call and a signal that also fires on timeout. */
export interface ToolExecContext extends ToolContext {
  toolCallId: string;
}
