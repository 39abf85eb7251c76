/** Small factories for the panel's unit tests (not a test file itself). */
import type { AgentEvent } from '../../src/agent/events';
import { ContextBudget, type BudgetComponents, type BudgetMeta } from '../../src/context/budget';
import { resolveModelLimits } from '../../src/context/models';
import type { AssistantMessage, ToolCallPart, UserMessage } from '../../src/providers/types';
import type { ToolResult } from '../../src/tools/tool-result';

export const user = (text: string): UserMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });

export function assistant(text: string, extra: Partial<AssistantMessage> = {}, calls: ToolCallPart[] = []): AssistantMessage {
  return {
    role: 'assistant',
    content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
    stopReason: calls.length ? 'toolUse' : 'end',
    timestamp: 2,
    ...extra,
  };
}

export const call = (id: string, name = 'read_file', args: Record<string, unknown> = { path: 'src/a.ts' }): ToolCallPart => ({
  type: 'toolCall',
  id,
  name,
  arguments: args,
});

export function result(id: string, text: string, extra: Partial<ToolResult> = {}): ToolResult {
  return {
    role: 'toolResult',
    toolCallId: id,
    toolName: 'read_file',
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: 3,
    ...extra,
  };
}

/** A real budget from the context engine (Claude Sonnet 4.5 limits). */
export function budget(components: Partial<BudgetComponents>, meta: BudgetMeta = {}) {
  return new ContextBudget(resolveModelLimits('claude-sonnet-4-5', 'anthropic'), components, meta).toViewModel();
}

/** A `context_usage` event carrying a real budget breakdown. */
export function usageEvent(components: Partial<BudgetComponents>, meta: BudgetMeta = {}): AgentEvent {
  const b = budget(components, meta);
  return {
    type: 'context_usage',
    usage: {
      used: b.used,
      effectiveWindow: b.effectiveWindow,
      contextWindow: b.window,
      ratio: b.percent,
      status: 'ok',
      budget: b,
    },
  };
}
