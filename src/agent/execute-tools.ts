/**
 * Runs the tool calls of one assistant message, in order: each is validated, approved and executed
 * by the registry (unless the turn's watch answers it: work already done), then admitted against the
 * live context (inlined, or stored with a stub) and appended to the view at once, so the next
 * admission sees it. Every call gets exactly one result:
 * after an abort the calls not yet run get an `aborted` result without running. Never throws.
 */
import type { Message, ToolCallPart } from '../providers/types';
import { admitResult } from '../tools/admission';
import { recordingApprovals } from '../tools/approval-record';
import { errorResult, type ToolResult } from '../tools/tool-result';
import type { AgentEventSink } from './events';
import type { TurnConfig, WatchedCall } from './turn-config';

export async function executeToolCalls(
  calls: readonly ToolCallPart[],
  view: Message[],
  config: TurnConfig,
  signal: AbortSignal,
  emit: AgentEventSink,
): Promise<ToolResult[]> {
  const results: ToolResult[] = [];
  for (const call of calls) {
    emit({ type: 'tool_start', call });
    let result: ToolResult;
    let raw: ToolResult | undefined;
    if (signal.aborted) {
      result = abortedResult(call);
    } else {
      const watched = await watch(config, call, signal);
      // What the user is asked about this call is kept with its result: a reopened chat shows the card again.
      const approve = recordingApprovals(config.toolContext.approve);
      raw =
        watched.instead ??
        (await config.tools.invoke(call, {
          ...config.toolContext,
          ...(config.gate.headroom ? { headroom: config.gate.headroom(view) } : {}),
          approve,
          signal,
          onOutput: (chunk) => emit({ type: 'tool_output', toolCallId: call.id, chunk }),
        }));
      const approval = approve.asked();
      if (approval) raw = { ...raw, approval };
      await watched.after?.(raw).catch(() => undefined);
      result = await admitResult(raw, {
        store: config.toolContext.results,
        thresholdBytes: config.offloadThresholdBytes,
        neverOffload: (name) => config.tools.get(name)?.neverOffload === true,
        admit: (sizes) => config.gate.admit(sizes, view),
      });
    }
    view.push(result);
    results.push(result);
    const offloaded = result.refId !== undefined;
    emit({ type: 'tool_end', call, result, offloaded, ...(offloaded && raw ? { full: raw } : {}) });
    emit({ type: 'context_usage', usage: config.gate.measure(view) });
  }
  return results;
}

/** The watch's verdict on a call; a watch that fails lets the call run as usual. */
async function watch(config: TurnConfig, call: ToolCallPart, signal: AbortSignal): Promise<WatchedCall> {
  try {
    return (await config.watch?.before(call, signal)) ?? {};
  } catch {
    return {};
  }
}

/** Results for calls that will never run (aborted turn, failed response, forced final turn). */
export function unrunResults(
  calls: readonly ToolCallPart[],
  why: 'aborted' | 'failed' | 'final' | 'max_iterations' | 'truncated',
): ToolResult[] {
  return calls.map((call) => {
    switch (why) {
      case 'aborted':
        return abortedResult(call);
      case 'failed':
        return errorResult(call, 'tool_failed', `${call.name} was not run: the response that called it failed before it was complete.`);
      case 'final':
        return errorResult(call, 'tool_failed', `${call.name} was not run: tools are disabled because the context is full.`);
      case 'truncated':
        return errorResult(
          call,
          'invalid_tool_input',
          `${call.name} was not run: your answer hit the output token limit, so its arguments may be cut off. Call it again with complete arguments (split large content into smaller steps).`,
        );
      case 'max_iterations':
        return errorResult(call, 'tool_failed', `${call.name} was not run: the turn reached its maximum number of steps.`);
    }
  });
}

function abortedResult(call: ToolCallPart): ToolResult {
  return { ...errorResult(call, 'aborted', `${call.name} was stopped by the user before it ran.`), decision: 'stopped' };
}

/** Gives every call of the last assistant message without a result an aborted result (last-resort repair). */
export function repairDanglingCalls(view: Message[], newMessages: Message[]): void {
  let i = view.length - 1;
  while (i >= 0 && view[i].role === 'toolResult') i--;
  const last = view[i];
  if (last?.role !== 'assistant') return;
  // Counted, not a set: each result answers one call, also when calls of one answer share an id.
  const answered = new Map<string, number>();
  for (const m of view.slice(i + 1)) if (m.role === 'toolResult') answered.set(m.toolCallId, (answered.get(m.toolCallId) ?? 0) + 1);
  const missing = last.content.filter((p): p is ToolCallPart => {
    if (p.type !== 'toolCall') return false;
    const left = answered.get(p.id) ?? 0;
    answered.set(p.id, left - 1);
    return left <= 0;
  });
  const results = unrunResults(missing, 'aborted');
  view.push(...results);
  newMessages.push(...results);
}
