/**
 * What `runTurn` needs: the context it works on, and the hooks and ports that plug persistence,
 * context accounting/compaction, steering and tools into it. Nothing here knows about `vscode`.
 */
import type { ErrorKind } from '../common/errors';
import type { GuardStatus, Projection } from '../context/guard';
import type { ProviderClearing } from '../context/compaction/context-editing';
import type { Provider } from '../providers/provider';
import type {
  AssistantMessage,
  Message,
  ProviderRequest,
  SystemSection,
  ToolCallPart,
  ToolDefinition,
  UserMessage,
} from '../providers/types';
import type { AdmitDecision, ResultSizes } from '../tools/admission';
import type { HeadroomPort, ToolContext } from '../tools/ports';
import type { ToolRegistry } from '../tools/registry';
import type { ToolResult } from '../tools/tool-result';
import type { CompactionReport, ContextUsage, TurnEndReason } from './events';

/**
 * The context one turn works on. `messages` is the context view (not the transcript): runTurn
 * appends to it in place, and replaces it (assigns `ctx.messages`) when the gate compacts.
 */
export interface TurnContext {
  messages: Message[];
  /** Static system sections, in order static → dynamic; the loop appends its dynamic notes. */
  system: SystemSection[];
  /** The user message that starts the turn. */
  prompt: UserMessage;
  /**
   * A retry of a turn that failed: `prompt` is already in `messages` and is not delivered again; the
   * turn goes on from the context as it is.
   */
  resumed?: boolean;
}

/** Why the gate is asked. `overflow`: the provider said the last request was too long (compact, retry once). */
export type PreflightReason = 'request' | 'overflow' | 'final';

export interface PreflightInput {
  messages: readonly Message[];
  system: readonly SystemSection[];
  tools: readonly ToolDefinition[];
  reason: PreflightReason;
}

/** The gate's verdict on the request about to be sent. */
export interface PreflightDecision {
  /**
   * After any compaction the gate did: `ok`/`note`/`compact` → send (with the awareness note from
   * `note` on); `block`/`final` → do not send as is: the loop forces a final turn without tools.
   */
  status: GuardStatus;
  /** Projection total / effective window for the request as checked (after compaction). */
  ratio: number;
  projection?: Projection;
  /** The awareness note ("[Context: 83 % used. compact_context frees space.]") when at or over the note threshold. */
  note?: string;
  /** A compacted view that replaces the context view. Must keep every tool call with its result. */
  messages?: Message[];
  /** Set when the gate compacted. */
  compaction?: CompactionReport;
}

/**
 * Context accounting, admission and compaction for the loop (the default is `createContextGate`).
 * Contract: never throws, never rejects.
 */
export interface ContextGate {
  /** Before every model request (and with reason `final` before the forced final one). May compact. */
  preflight(input: PreflightInput, signal: AbortSignal): Promise<PreflightDecision>;
  /** Before each tool result joins `view`: inline it or store it. */
  admit(sizes: ResultSizes, view: readonly Message[]): AdmitDecision;
  /** The live budget for a tool running against `view` (paging tools size their page to it). Optional. */
  headroom?(view: readonly Message[]): HeadroomPort;
  /** The context as the meter shows it. Cheap (memoized counts); called after every message. */
  measure(view: readonly Message[]): ContextUsage;
  /** Called with every completed request and the provider's answer (calibration). */
  observe?(request: ProviderRequest, reply: AssistantMessage): void;
  /** What the provider's own clearing took out of the request, judged against what was sent. Optional. */
  clearing?(request: ProviderRequest, reply: AssistantMessage): ProviderClearing | undefined;
}

/**
 * Where new messages go (the session store). Called with the prompt (`startsTurn: true`), each steering
 * message, and each assistant message together with all its tool results (never a call without its
 * result). A rejection is reported as a `storage` error event; the turn goes on.
 */
export type PersistHook = (messages: Message[], info: { startsTurn: boolean }) => Promise<void>;

/**
 * Looks at each tool call before it runs and after it ran (the work ledger's repeat guard and its record
 * of what a command changed). Contract: never throws, never rejects.
 */
export interface ToolWatch {
  before(call: ToolCallPart, signal: AbortSignal): Promise<WatchedCall>;
}

/** What a watch decided about one call. */
export interface WatchedCall {
  /** Given as the call's result instead of running it (the work was done already; the result says so). */
  instead?: ToolResult;
  /** Called with the call's own result before it joins the context. Never rejects. */
  after?: (result: ToolResult) => Promise<void>;
}

/** The tool context minus what the loop supplies per call (the turn's signal and the output stream). */
export type ToolContextBase = Omit<ToolContext, 'signal' | 'onOutput'>;

export interface TurnConfig {
  provider: Provider;
  model: string;
  maxOutputTokens: number;
  /**
   * The session's tools. Build it WITHOUT `admission`: the loop admits every result itself against
   * the live context (admitting twice would judge stubs again).
   */
  tools: ToolRegistry;
  toolContext: ToolContextBase;
  gate: ContextGate;
  persist?: PersistHook;
  /** Sees every tool call before and after it runs; may answer one instead of running it. Optional. */
  watch?: ToolWatch;
  /** Drains messages the user typed while the turn runs; delivered at the next iteration boundary. */
  steering?: () => UserMessage[];
  /** Maximum model requests per turn (default 50). */
  maxIterations?: number;
  /** Tool results over this many UTF-8 bytes are stored, not inlined (default 4096). */
  offloadThresholdBytes?: number;
  /** Passed through to every request. */
  request?: Pick<ProviderRequest, 'cacheTail' | 'promptCacheKey' | 'thinking' | 'temperature' | 'cacheLifetime' | 'contextEditing'>;
  /**
   * The provider refused the request's context editing (`message`: its words): the request went again
   * without it, and so do the turn's later ones; the caller remembers it for the session.
   */
  onContextEditingRefused?: (message: string) => void;
  /** The provider refused deferred tools loaded by reference (`tool-references.ts`): the session's later requests list them instead. */
  onToolReferencesRefused?: (message: string) => void;
  /** Turn id for events; a fresh one when omitted. */
  turnId?: string;
}

/** What `runTurn` resolves to. */
export interface TurnResult {
  turnId: string;
  reason: TurnEndReason;
  /** Messages added during the turn, in order (prompt, steering, assistant messages, tool results). */
  newMessages: Message[];
  /** The context view at the end of the turn (same as `ctx.messages`). */
  messages: Message[];
  /** Set when `reason` is 'error'. */
  error?: { kind: ErrorKind; message: string };
}
