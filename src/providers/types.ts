/**
 * Headroom's one neutral message model. Everything above `providers/` (context engine, store, agent
 * loop, panel) speaks only these types; conversion to and from a provider's wire format happens
 * inside `providers/anthropic.ts` and `providers/openai.ts` and nowhere else.
 *
 * All types are plain JSON-serializable data so they can be persisted and hashed as they are.
 */
import type { ProviderId } from '../common/provider-catalogue';
import type { EffortLevel } from './model-info';

/** Where a model is served; the ids are the provider catalogue's. */
export type { ProviderId };

export interface TextPart {
  type: 'text';
  text: string;
}

/**
 * An image sent to the model; `data` is base64 without a data: prefix. `width` and `height` (pixels,
 * read from the image's header when it was attached) size its token estimate (`common/images.ts`
 * `imageTokens`); adapters never send them.
 */
export interface ImagePart {
  type: 'image';
  mediaType: string;
  data: string;
  width?: number;
  height?: number;
}

/** Model reasoning ("thinking"). `signature` is the provider's opaque proof, sent back verbatim. */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  signature?: string;
  /** Anthropic redacted thinking: opaque data that must be passed back unchanged. */
  redactedData?: string;
}

/** A tool call the model made. `arguments` is the parsed JSON object (`{}` when unparsable). */
export interface ToolCallPart {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Raw argument text when it was not valid JSON, so the tool layer can report it to the model. */
  rawArguments?: string;
  /**
   * The provider's own id of the call item (OpenAI Responses `fc_…`), distinct from `id` (the
   * `call_id` tool results refer to). Sent back so the call stays paired with its reasoning item.
   */
  itemId?: string;
}

export interface UserMessage {
  role: 'user';
  content: Array<TextPart | ImagePart>;
  timestamp: number;
  /**
   * Set only by Headroom on user-role messages it writes itself: 'history' marks the stand-in for
   * compacted turns (`historyMessage`). Never derived from text, so nothing a user types or pastes can
   * pass for one. Providers never see it (adapters send role and content only).
   */
  origin?: 'history';
  /**
   * Set when the prompt had @-mentions: what each attached, as its chip shows it. The prompt's own
   * text is then the first part only; each mention's block follows as a part of its own. Providers
   * never see it.
   */
  mentions?: MessageMention[];
}

/** One @-mention of a user message, as the transcript shows it (`protocol/mentions.ts` `MentionChip`). */
export interface MessageMention {
  kind: 'file' | 'folder' | 'selection' | 'range' | 'problems';
  label: string;
  /** The workspace path the chip opens. */
  path?: string;
  /** Why it was not attached. */
  problem?: string;
  /** The block was stored (too large for the context) and the model reads it with read_result. */
  stored?: boolean;
}

export type StopReason = 'end' | 'toolUse' | 'maxTokens' | 'error' | 'aborted';

/** Kinds of provider failure. See `ProviderError`. */
export type ProviderErrorKind =
  'context_overflow' | 'rate_limit' | 'overloaded' | 'auth' | 'network' | 'invalid_request' | 'aborted' | 'unknown';

/** A provider failure as data. `retryAfterMs` is set when the provider said when to come back. */
export interface ProviderError {
  kind: ProviderErrorKind;
  message: string;
  status?: number;
  retryAfterMs?: number;
  /** False: never retried whatever its kind (e.g. the request's idle budget is spent). */
  retryable?: false;
}

/**
 * Token usage normalized across providers. `input` counts only uncached input tokens;
 * the request's whole prompt is `input + cacheRead + cacheWrite`.
 * `estimated` is true when the provider reported nothing and Headroom estimated the figures.
 */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Of `cacheWrite`, tokens written to live 1 hour (Anthropic bills them at 2× input, not 1.25×). */
  cacheWrite1h?: number;
  /** Of `output`, tokens the model spent reasoning (when the provider reports it). */
  reasoning?: number;
  estimated?: boolean;
}

export interface AssistantMessage {
  role: 'assistant';
  content: Array<TextPart | ReasoningPart | ToolCallPart>;
  provider: ProviderId;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  /** Set when stopReason is 'error' or 'aborted'. */
  error?: ProviderError;
  /** True when the stream broke off and `content` holds only what arrived before. */
  partial?: boolean;
  /** The compaction the provider ran itself for a `nativeCompaction` request (absent when it did not compact). */
  compaction?: ProviderCompaction;
  /**
   * What the provider cleared from the prompt before the model read it, for a `contextEditing`
   * request, as it reported it (checked, in range; not yet judged against what was sent).
   */
  contextEdits?: AppliedContextEdit[];
  timestamp: number;
}

/**
 * A compaction the provider ran on its server (Anthropic `compact_20260112`): the readable summary it
 * wrote and what that cost, which the provider reports apart from the message's own usage.
 */
export interface ProviderCompaction {
  summary: string;
  usage: Usage;
}

/**
 * One context edit the provider applied to a request (Anthropic `context_management.applied_edits`):
 * old tool uses cleared, or old thinking turns; with the input tokens it says that took out.
 */
export type AppliedContextEdit =
  { kind: 'toolUses'; cleared: number; inputTokens: number } | { kind: 'thinking'; cleared: number; inputTokens: number };

/**
 * The provider's own clearing of old tool uses, asked with a request (Anthropic context editing):
 * above `triggerTokens` of input it clears the oldest tool results but the newest `keepToolUses`,
 * never those of `excludeTools`, only when at least `clearAtLeastTokens` go; `clearThinking` also
 * clears thinking of older turns (only with thinking on). The client keeps its history as it is.
 */
export interface ContextEditingRequest {
  triggerTokens: number;
  keepToolUses: number;
  clearAtLeastTokens: number;
  excludeTools: readonly string[];
  clearToolInputs: boolean;
  clearThinking: boolean;
}

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: Array<TextPart | ImagePart>;
  isError: boolean;
  /** Set when the full output was offloaded to the result store; `content` then holds the stub. */
  refId?: string;
  /** Size of the offloaded output (set with `refId`): what the panel shows on the tool card. */
  stored?: { bytes: number; lines: number };
  /**
   * The deferred tools this result loads (`tool_search`): an adapter whose request declares them all in
   * `deferredTools` sends references (Anthropic `tool_reference`) instead of `content`, which lists the
   * same definitions as text for every other request.
   */
  toolReferences?: string[];
  /**
   * The user's decision, when that is why the call did not run or did not finish: they rejected it, or
   * stopped the turn. Not a failure of the tool; `isError` stays set so the model does not take it for output.
   */
  decision?: UserDecision;
  /** The approval the call waited for, when the user was asked: the chat shows its card again on reopening. Providers never see it. */
  approval?: ToolApproval;
  timestamp: number;
}

/** A user's say over a tool call: rejected at approval, or stopped with the turn. */
export type UserDecision = 'rejected' | 'stopped';

/**
 * What the user was asked about a call and what they answered, as the approval card showed it: an
 * edit by its line counts (the content is the call's own arguments), a command, an external tool's
 * input, a secret file's read.
 */
export interface ToolApproval {
  request:
    | { kind: 'edit'; path: string; isNew: boolean; added: number; removed: number }
    | { kind: 'command'; command: string; cwd: string }
    | { kind: 'tool'; origin: string; input: string }
    | { kind: 'secret'; path: string; target: string; reason: string };
  decision: { approved: true; forSession?: boolean } | { approved: false; reason?: string };
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** JSON Schema object describing a tool's input. */
export type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/**
 * One section of the system prompt, in order static → dynamic. `cacheBreakpoint` asks the adapter to
 * put a cache marker right after this section (Anthropic `cache_control`; ignored by OpenAI, which
 * caches prefixes automatically).
 */
export interface SystemSection {
  id: string;
  text: string;
  cacheBreakpoint?: boolean;
}

/**
 * How long a prompt cache keeps what a request writes: Anthropic's 5-minute default or 1 hour, OpenAI's
 * in-memory retention or 24 hours (chosen in `context/cache-lifetime.ts`).
 */
export type CacheLifetime = '5m' | '1h' | '24h';

/** Everything an adapter needs for one model request. */
export interface ProviderRequest {
  model: string;
  system: SystemSection[];
  messages: Message[];
  /** The tools the model sees (built-ins first). */
  tools: ToolDefinition[];
  /**
   * Tools declared but not loaded (Anthropic `defer_loading`), only for a model that loads tools by
   * reference: the model sees one when a `tool_search` result references it (`ToolResultMessage.toolReferences`),
   * and neither the list nor a reference changes the cached prefix. Absent: deferred tools are left out.
   */
  deferredTools?: ToolDefinition[];
  maxOutputTokens: number;
  /** Put a cache breakpoint on the last message (conversation tail). */
  cacheTail?: boolean;
  /** `none`: the tools are declared (so the cached prefix is unchanged) but the model may not call them. */
  toolChoice?: 'none';
  /** OpenAI `prompt_cache_key`; a stable id per session. */
  promptCacheKey?: string;
  /** How long the cache should keep what this request writes (one the model offers); absent: the provider's default. */
  cacheLifetime?: CacheLifetime;
  /**
   * A note that changes from request to request (the context status). Sent after the last cache
   * breakpoint, as trailing text of the final user turn, so it never invalidates the cached prefix.
   */
  trailingNote?: string;
  /** The thinking the model is asked for, as its capabilities take it (`context/thinking.ts`); absent: none. */
  thinking?: RequestThinking;
  /** Sent only to models that take sampling parameters (never to a reasoning model). */
  temperature?: number;
  /**
   * Asks the provider to compact the prompt itself and answer with its summary alone, when the prompt
   * is at least `triggerTokens` long (only for a model that declares it: Anthropic `compact_20260112`).
   * `instructions` replace the provider's own summary prompt.
   */
  nativeCompaction?: { triggerTokens: number; instructions?: string };
  /** Asks the provider to clear old tool uses from what the model reads (only for a model that declares it). */
  contextEditing?: ContextEditingRequest;
}

/**
 * Thinking as one request asks for it: adaptive with an effort (Anthropic `thinking.type: adaptive`
 * + `output_config.effort`, the thinking inside `max_tokens`), a token budget (Anthropic
 * `thinking.type: enabled`; OpenAI-compatible servers get the effort it corresponds to), or an
 * effort only (OpenAI `reasoning.effort`).
 */
export type RequestThinking =
  /** Thinking turned off explicitly (Anthropic `thinking.type: disabled`, OpenAI effort `none`): only for models that allow it. */
  | { mode: 'disabled' }
  | { mode: 'adaptive'; effort?: EffortLevel }
  | { mode: 'budget'; budgetTokens: number }
  | { mode: 'effort'; effort: EffortLevel };

/** Events an adapter emits while streaming one request. The stream always ends with `done`. */
export type StreamEvent =
  | { type: 'start' }
  | { type: 'text_delta'; delta: string }
  | { type: 'reasoning_delta'; delta: string }
  | { type: 'toolcall_start'; id: string; name: string }
  | { type: 'toolcall_end'; call: ToolCallPart }
  | { type: 'retry'; attempt: number; delayMs: number; error: ProviderError }
  | { type: 'done'; message: AssistantMessage };
