/**
 * Everything the agent loop reports while a turn runs. The UI (panel presenter) renders only from
 * these events; the loop never touches the UI. All payloads are plain data.
 */
import type { ErrorKind } from '../common/errors';
import type { RequestShape } from '../context/cache-truth';
import type { BudgetViewModel } from '../context/budget';
import type { GuardStatus } from '../context/guard';
import type { CompactionReport } from '../context/compaction/report';
import type { CompactionChange } from '../context/compaction/what-left';
import type { ProviderClearing } from '../context/compaction/context-editing';
import type { AssistantMessage, Message, ProviderError, ToolCallPart, Usage, UserMessage } from '../providers/types';
import type { ToolResult } from '../tools/tool-result';

/** Why a turn ended. */
export type TurnEndReason =
  /** The model answered without tool calls. */
  | 'done'
  /** Stopped by the user (the turn's AbortSignal). */
  | 'aborted'
  /** The provider failed (see the `error` event before `turn_end`). */
  | 'error'
  /** `maxIterations` model requests were made and the model still wanted to call tools. */
  | 'max_iterations'
  /** The block threshold was reached and compaction could not get under it: a forced final answer was given. */
  | 'context_full';

/** The context as the meter shows it, after every message and tool result. */
export interface ContextUsage {
  /** Input tokens the next request would use (calibrated estimate). */
  used: number;
  effectiveWindow: number;
  contextWindow: number;
  /** used / effectiveWindow (what thresholds compare against). */
  ratio: number;
  status: GuardStatus;
  /** The component breakdown for the meter, when the gate computes one. */
  budget?: BudgetViewModel;
}

/** What a compaction did (shown in the chat): assembled by `compactionReport` in `context/compaction`. */
export type { CompactionReport };

/** What one compaction pass changed: the view before and after, for the panel's "what left" view. */
export type { CompactionChange };

export type AgentEvent =
  /** `resumed`: a retry of the failed last turn, whose prompt is already in the context (no `message_start` for it). */
  | { type: 'turn_start'; turnId: string; prompt: UserMessage; resumed?: boolean }
  /** A message begins. Assistant messages stream (deltas follow); user messages arrive whole. */
  | { type: 'message_start'; role: 'assistant' }
  | { type: 'message_start'; role: 'user'; message: UserMessage }
  | { type: 'message_delta'; kind: 'text' | 'reasoning'; delta: string }
  /** The model started a tool call (its arguments are still streaming). */
  | { type: 'message_delta'; kind: 'toolCall'; toolCallId: string; name: string }
  /**
   * A message is complete. For the assistant this is the final message (possibly `partial`, or with
   * `stopReason` 'error' / 'aborted'). A request refused for context overflow is retried once after a
   * compaction: its (empty) `message_end` is then followed by a new `message_start`. Render failures
   * from `error` events, not from `stopReason`.
   */
  | { type: 'message_end'; message: UserMessage | AssistantMessage }
  | { type: 'tool_start'; call: ToolCallPart }
  | { type: 'tool_output'; toolCallId: string; chunk: string }
  /**
   * A tool finished; `result` is what joined the context (a stub with `refId` when offloaded), `full`
   * the tool's own result when it was offloaded (for records such as the work ledger; not shown).
   */
  | { type: 'tool_end'; call: ToolCallPart; result: ToolResult; offloaded: boolean; full?: ToolResult }
  /** Provider-reported usage of one model request; `shape`: what the request was made of (for the cache's truth). */
  | { type: 'usage'; model: string; usage: Usage; shape?: RequestShape }
  | { type: 'context_usage'; usage: ContextUsage }
  /**
   * The provider cleared old tool uses (or thinking) from what the model read for one request (its
   * context editing); Headroom's transcript and view keep them. Sent with every answer that reports a
   * clearing: the server clears again on every request over its trigger.
   */
  | { type: 'context_edits'; clearing: ProviderClearing }
  /**
   * A compaction pass starts (any trigger): `summarizing` is how many messages it expects to take out of
   * the verbatim context. Always followed by `compaction_end`; a pass that changed the view is then
   * reported with `compaction`.
   */
  | { type: 'compaction_start'; trigger: CompactionReport['trigger']; summarizing: number }
  /** A compaction pass ended: what it did (`done`), that the user cancelled it, or that nothing changed. */
  | { type: 'compaction_end'; outcome: 'done' | 'cancelled' | 'nothing'; change?: CompactionChange }
  | { type: 'compaction'; report: CompactionReport }
  /** The provider is waiting before retrying a request (rate limit, overload, network). */
  | { type: 'retry'; attempt: number; delayMs: number; error: ProviderError }
  /** Something went wrong that a person can act on. The turn may still go on (e.g. persistence). */
  | { type: 'error'; kind: ErrorKind; message: string }
  | { type: 'turn_end'; turnId: string; reason: TurnEndReason; messages: Message[] };

/** Receives events synchronously, in order. Must not throw (the loop guards against it anyway). */
export type AgentEventSink = (event: AgentEvent) => void;
