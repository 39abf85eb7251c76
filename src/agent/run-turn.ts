/**
 * The agent loop: one function with hooks and events (STYLE 1). A user message goes in; model
 * requests alternate with tool execution until the model answers without tool calls, the turn is
 * stopped, a request fails, `maxIterations` is reached, or the context is full (forced final turn).
 *
 * Invariants: every tool call in the view has exactly one result right after its message, and a
 * call is persisted together with its results; no request is sent at or over the block threshold
 * (the gate compacts first; if that does not help, one last request without tools, or none at all
 * if even that would not fit); runTurn never throws.
 */
import { errorMessage, type ErrorKind } from '../common/errors';
import { singleLine } from '../common/single-line';
import { newId } from '../common/ids';
import { requestShape } from '../context/cache-truth';
import type { AssistantMessage, Message, ProviderRequest, ToolCallPart, UserMessage } from '../providers/types';
import type { AgentEvent, AgentEventSink, TurnEndReason } from './events';
import { executeToolCalls, repairDanglingCalls, unrunResults } from './execute-tools';
import { storableReply } from './storable-reply';
import { isImageRefusal } from '../providers/image-refusals';
import { withoutRefusedImages } from './refused-images';
import { clearingEvent, withoutRefusedEdits } from './context-edits';
import { withoutRefusedReferences } from './tool-references';
import { streamResponse } from './stream-response';
import { withDynamicNotes } from './system-notes';
import type { PreflightDecision, PreflightReason, TurnConfig, TurnContext, TurnResult } from './turn-config';

export const DEFAULT_MAX_ITERATIONS = 50;

export async function runTurn(ctx: TurnContext, config: TurnConfig, signal: AbortSignal, sink: AgentEventSink): Promise<TurnResult> {
  const turnId = config.turnId ?? newId('turn');
  const emit = safeSink(sink);
  const newMessages: Message[] = [];
  const maxIterations = Math.max(1, config.maxIterations ?? DEFAULT_MAX_ITERATIONS);

  const persist = async (messages: Message[], startsTurn: boolean): Promise<void> => {
    if (!config.persist || messages.length === 0) return;
    try {
      await config.persist(messages, { startsTurn });
    } catch (err) {
      emit({ type: 'error', kind: 'storage', message: `Could not save the conversation: ${errorMessage(err)}` });
    }
  };
  const append = (...messages: Message[]): void => {
    ctx.messages.push(...messages);
    newMessages.push(...messages);
  };
  const deliver = async (message: UserMessage, startsTurn: boolean): Promise<void> => {
    emit({ type: 'message_start', role: 'user', message });
    append(message);
    emit({ type: 'message_end', message });
    await persist([message], startsTurn);
    emit({ type: 'context_usage', usage: config.gate.measure(ctx.messages) });
  };
  const deliverSteering = async (): Promise<boolean> => {
    let queued: UserMessage[];
    try {
      queued = config.steering?.() ?? [];
    } catch {
      queued = [];
    }
    for (const m of queued) await deliver(m, false);
    return queued.length > 0;
  };
  const end = (reason: TurnEndReason, error?: { kind: ErrorKind; message: string }): TurnResult => {
    if (error) emit({ type: 'error', kind: error.kind, message: error.message });
    emit({ type: 'turn_end', turnId, reason, messages: [...newMessages] });
    return { turnId, reason, newMessages, messages: ctx.messages, error };
  };

  try {
    emit({ type: 'turn_start', turnId, prompt: ctx.prompt, ...(ctx.resumed ? { resumed: true } : {}) });
    config.tools.beginTurn();
    if (!ctx.resumed) await deliver(ctx.prompt, true);

    for (let iteration = 0; ; iteration++) {
      if (signal.aborted) return end('aborted');
      if (iteration > 0) await deliverSteering();

      const planned = await planRequest(config, ctx, iteration >= maxIterations, signal, emit);
      if ('end' in planned) return end(planned.end, planned.error);
      const { final } = planned;
      // A reply cut off mid-thinking keeps no trailing thinking: the provider would refuse it from then on.
      const reply = storableReply(await sendRequest(config, ctx, planned, signal, emit));

      const calls = reply.content.filter((p): p is ToolCallPart => p.type === 'toolCall');
      if (reply.content.length > 0) append(reply);
      emit({ type: 'context_usage', usage: config.gate.measure(ctx.messages) });

      if (reply.stopReason === 'aborted' || signal.aborted) {
        await settle(reply, unrunResults(calls, 'aborted'));
        return end('aborted');
      }
      if (reply.stopReason === 'error') {
        await settle(reply, unrunResults(calls, 'failed'));
        return end('error', { kind: reply.error?.kind ?? 'unknown', message: reply.error?.message ?? 'The model request failed.' });
      }
      if (final) {
        await settle(reply, unrunResults(calls, 'final'));
        return end('context_full');
      }
      if (calls.length === 0) {
        await persist(reply.content.length ? [reply] : [], false);
        // A message typed during the last request is answered in this turn.
        if (await deliverSteering()) continue;
        return end('done');
      }
      if (iteration + 1 >= maxIterations) {
        await settle(reply, unrunResults(calls, 'max_iterations'));
        return end('max_iterations');
      }

      if (reply.stopReason === 'maxTokens') {
        // The answer was cut off at the output limit: its calls' arguments may be truncated. None is run;
        // the model sees why and can issue them again.
        await settle(reply, unrunResults(calls, 'truncated'));
        continue;
      }

      const results = await executeToolCalls(calls, ctx.messages, config, signal, emit);
      newMessages.push(...results);
      await persist([reply, ...results], false);
      if (signal.aborted) return end('aborted');
    }
  } catch (err) {
    // Only reachable if a hook breaks its contract; the view may hold a call without its result.
    repairDanglingCalls(ctx.messages, newMessages);
    return end('error', { kind: 'unknown', message: `The agent loop failed: ${errorMessage(err)}` });
  }

  /** Appends results for calls that will not run and persists the message with them. */
  async function settle(reply: AssistantMessage, results: Message[]): Promise<void> {
    // The results are the calls' own, in order (by position: ids of one answer may repeat).
    const calls = reply.content.filter((p): p is ToolCallPart => p.type === 'toolCall');
    results.forEach((r, k) => {
      append(r);
      const call = calls[k];
      if (r.role === 'toolResult' && call) emit({ type: 'tool_end', call, result: r, offloaded: false });
    });
    await persist(reply.content.length ? [reply, ...results] : [], false);
  }
}

/** A request ready to send, and what a retry after an unforeseen overflow needs. */
interface PlannedRequest {
  request: ProviderRequest;
  /** A forced final request: sent without tools, its calls never run. */
  final: boolean;
  tools: ProviderRequest['tools'];
  deferral: string | undefined;
}

/** Why the turn ends before a request is sent. */
interface EndBeforeRequest {
  end: TurnEndReason;
  error?: { kind: ErrorKind; message: string };
}

/**
 * Prepares one request: asks the gate (which compacts first if needed), then builds a request with
 * the tools, or, when the context is still full, a forced final request without them (none at all when
 * even that would not fit). `pastLimit`: the iteration limit is reached, so only a final request may go.
 */
async function planRequest(
  config: TurnConfig,
  ctx: TurnContext,
  pastLimit: boolean,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<PlannedRequest | EndBeforeRequest> {
  let tools = config.tools.definitionsForRequest();
  let deferral = config.tools.selection().note;
  let decision = await gate(config, ctx, { tools, system: withDynamicNotes(ctx.system, { deferral }) }, 'request', signal, emit);
  if (signal.aborted) return { end: 'aborted' };

  if (decision.status === 'block' || decision.status === 'final') {
    // Before a forced final answer: tools activated during this turn may be what does not fit.
    // Deferring them again (they stay callable by name and through tool_search) often does.
    const fewer = await withoutTurnPins(config, ctx, tools, signal, emit);
    if (fewer) ({ tools, deferral, decision } = fewer);
  }
  if (decision.status === 'block' || decision.status === 'final') {
    const system = withDynamicNotes(ctx.system, { final: true });
    const check = await gate(config, ctx, { tools: [], system }, 'final', signal, emit);
    if (check.ratio > 1) {
      return {
        end: 'context_full',
        error: {
          kind: 'context_overflow',
          message:
            'The context is full and could not be compacted enough to send even a final request. ' +
            'Compact the context (/compact), clear it (/clear) or start a new session.',
        },
      };
    }
    return { request: buildRequest(config, ctx, system, []), final: true, tools, deferral };
  }
  if (pastLimit) return { end: 'max_iterations' };
  const system = withDynamicNotes(ctx.system, { deferral });
  return { request: buildRequest(config, ctx, system, tools, decision.note), final: false, tools, deferral };
}

/** Streams the request; when the provider counted more than we did (overflow), compacts and retries once. */
async function sendRequest(
  config: TurnConfig,
  ctx: TurnContext,
  planned: PlannedRequest,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<AssistantMessage> {
  const { final, tools, deferral } = planned;
  let request = planned.request;
  let reply = await streamResponse(config.provider, request, signal, emit);
  observe(config, request, reply, emit);
  // A provider that refuses its own context editing gets the request again without it.
  const resend = async (again: ProviderRequest) => {
    const r = await streamResponse(config.provider, again, signal, emit);
    observe(config, again, r, emit);
    return r;
  };
  ({ request, reply } = await withoutRefusedEdits(config, request, reply, resend));
  // …and one that refuses deferred tools loaded by reference gets them listed instead.
  ({ request, reply } = await withoutRefusedReferences(config, request, reply, resend));
  if (!final && reply.stopReason === 'error' && reply.error?.kind === 'context_overflow' && !signal.aborted) {
    const decision = await gate(config, ctx, { tools, system: request.system }, 'overflow', signal, emit);
    if (decision.status !== 'block' && decision.status !== 'final') {
      const system = withDynamicNotes(ctx.system, { deferral });
      request = buildRequest(config, ctx, system, tools, decision.note);
      reply = await streamResponse(config.provider, request, signal, emit);
      observe(config, request, reply, emit);
    }
  }
  // A refused image would fail every later request too: it leaves the view as a note, and the
  // request goes again (the newest image first, then every image left).
  for (let round = 0; round < 2 && isRefusal(reply) && !signal.aborted; round++) {
    const mended = withoutRefusedImages(ctx.messages, reply.error?.message ?? '', round > 0);
    if (mended.replaced === 0) break;
    ctx.messages = mended.messages;
    emit({
      type: 'error',
      kind: 'invalid_request',
      message:
        `The provider could not read ${mended.replaced === 1 ? 'an image' : `${mended.replaced} images`} of this conversation ` +
        `(${singleLine(reply.error?.message ?? '').slice(0, 200)}). A note took its place in the context and the request went again.`,
    });
    request = { ...request, messages: [...ctx.messages] };
    reply = await streamResponse(config.provider, request, signal, emit);
    observe(config, request, reply, emit);
  }
  return reply;
}

const isRefusal = (reply: AssistantMessage) =>
  reply.stopReason === 'error' && reply.error !== undefined && isImageRefusal(reply.error.message);

/**
 * Releases the tools activated during this turn back to the deferral rule and checks (without
 * compacting again) whether the request then fits; undefined when nothing changes or it still does not.
 */
async function withoutTurnPins(
  config: TurnConfig,
  ctx: TurnContext,
  tools: ProviderRequest['tools'],
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<{ tools: ProviderRequest['tools']; deferral: string | undefined; decision: PreflightDecision } | undefined> {
  config.tools.beginTurn();
  const fewer = config.tools.definitionsForRequest();
  if (fewer.length >= tools.length) return undefined;
  const deferral = config.tools.selection().note;
  const decision = await gate(config, ctx, { tools: fewer, system: withDynamicNotes(ctx.system, { deferral }) }, 'final', signal, emit);
  return decision.status === 'block' || decision.status === 'final' ? undefined : { tools: fewer, deferral, decision };
}

/** Asks the gate, applies a compacted view and reports the compaction. */
async function gate(
  config: TurnConfig,
  ctx: TurnContext,
  request: Pick<ProviderRequest, 'system' | 'tools'>,
  reason: PreflightReason,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<PreflightDecision> {
  const decision = await config.gate.preflight({ messages: ctx.messages, system: request.system, tools: request.tools, reason }, signal);
  if (decision.messages) ctx.messages = decision.messages;
  if (decision.compaction) emit({ type: 'compaction', report: decision.compaction });
  // Always: the gate has just counted what is about to be sent (tokenizer counts, not byte estimates).
  emit({ type: 'context_usage', usage: config.gate.measure(ctx.messages) });
  return decision;
}

/** The request as sent; `note` (the context status) goes after the last cache breakpoint. */
function buildRequest(
  config: TurnConfig,
  ctx: TurnContext,
  system: ProviderRequest['system'],
  tools: ProviderRequest['tools'],
  note?: string,
): ProviderRequest {
  // Tools loaded by reference are declared with the tools they defer from (never alone).
  const deferredTools = tools.length ? config.tools.deferredForRequest() : [];
  return {
    ...config.request,
    model: config.model,
    system,
    messages: [...ctx.messages],
    tools,
    ...(deferredTools.length ? { deferredTools } : {}),
    maxOutputTokens: config.maxOutputTokens,
    ...(note ? { trailingNote: note } : {}),
  };
}

/** Reports the request's usage and feeds it to calibration. */
function observe(config: TurnConfig, request: ProviderRequest, reply: AssistantMessage, emit: (e: AgentEvent) => void): void {
  if (reply.stopReason !== 'error' && reply.stopReason !== 'aborted')
    emit({
      type: 'usage',
      model: reply.model,
      usage: reply.usage,
      shape: requestShape(request, reply.timestamp, config.provider.id, reply.contextEdits),
    });
  try {
    config.gate.observe?.(request, reply);
  } catch {
    // Calibration is best effort.
  }
  const cleared = clearingEvent(config, request, reply);
  if (cleared) emit(cleared);
}

function safeSink(sink: AgentEventSink): (e: AgentEvent) => void {
  return (e) => {
    try {
      sink(e);
    } catch {
      // A broken listener must not break the turn.
    }
  };
}
