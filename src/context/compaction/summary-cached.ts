/**
 * The cache-preserving summary request: the agent's exact prefix — its system sections, tool
 * definitions and the conversation as last sent — followed by one instruction message. The provider's
 * prompt cache then serves almost all of the input, instead of the whole conversation being sent again
 * uncached as a quoted transcript. Anthropic's cache is a hierarchy (tools → system → messages) in
 * which a change of `tool_choice` or of the thinking parameters invalidates the message level
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#what-invalidates-the-cache),
 * so the request keeps the agent's own tool choice (none set) and thinking, and asks for an answer in
 * text in the message itself. Pure; never throws.
 */
import type { CacheLifetime, Message, ProviderRequest, RequestThinking, SystemSection, ToolDefinition } from '../../providers/types';
import { SUMMARY_SECTIONS } from './summary-request';

/** What the agent's last request started with. */
export interface AgentPrefix {
  model: string;
  /** The model's whole context window in tokens (the summary request may use it all but its output and a margin). */
  contextWindow?: number;
  system: readonly SystemSection[];
  tools: readonly ToolDefinition[];
  /** The tools it declared deferred (loaded by reference): kept, or every result that loads one is sent as text and the cache breaks there. */
  deferredTools?: readonly ToolDefinition[];
  /** The thinking the agent's requests carried: the summary request carries the same, or the cache of the messages is lost. */
  thinking?: RequestThinking;
  /** The agent's `max_tokens`: within the model's output limit, which a summary with thinking room must not exceed. */
  maxOutput?: number;
  /** The cache lifetime the agent's requests asked for: the summary writes its cache for as long. */
  cacheLifetime?: CacheLifetime;
}

/** The prefix of an agent request (the model's window with it), for a later cache-preserving summary. */
export function agentPrefix(request: ProviderRequest, contextWindow: number): AgentPrefix {
  const { model, system, tools, deferredTools, thinking, maxOutputTokens, cacheLifetime } = request;
  return {
    model,
    contextWindow,
    system,
    tools,
    ...(deferredTools?.length ? { deferredTools } : {}),
    maxOutput: maxOutputTokens,
    ...(thinking ? { thinking } : {}),
    ...(cacheLifetime ? { cacheLifetime } : {}),
  };
}

/** Output room for an adaptive model's thinking on top of the summary (its thinking is inside `max_tokens`). */
export const ADAPTIVE_SUMMARY_THINKING = 8_192;

/** The summary's output budget plus the room its thinking takes (a budget is inside `max_tokens` and must stay the agent's). */
function outputWithThinking(summaryTokens: number, thinking: RequestThinking | undefined): number {
  if (thinking?.mode === 'budget') return summaryTokens + thinking.budgetTokens;
  if (thinking?.mode === 'adaptive') return summaryTokens + ADAPTIVE_SUMMARY_THINKING;
  return summaryTokens;
}

export interface CachedSummaryOptions {
  /** The first kept message: the summary should cover what comes before it. */
  keptFrom?: Message;
  focus?: string;
  pins?: readonly string[];
  maxOutputTokens?: number;
}

export const CACHED_SUMMARY_MARK = '[Headroom: context compaction — this is not a message from the user]';

export function buildCachedSummaryRequest(
  view: readonly Message[],
  prefix: AgentPrefix,
  options: CachedSummaryOptions = {},
): ProviderRequest {
  const out = [
    CACHED_SUMMARY_MARK,
    'Stop working on the task for this one reply and answer in text only: do not call any tool. The conversation above is about to be compacted: ' +
      'write a summary of it so that you can continue the work with only your summary and the most recent messages. ' +
      'If the conversation starts with a summary of earlier work, merge it in. Be dense and factual: names, paths, commands, ' +
      'error messages, numbers, decisions and their reasons. Quote every user instruction.',
  ];
  const first = options.keptFrom ? snippet(options.keptFrom) : '';
  if (first)
    out.push(
      `The messages from the one starting "${first}" on stay in the context verbatim: summarize what came before them in full, and those only briefly.`,
    );
  if (options.pins?.length)
    out.push('Pinned by the user (kept verbatim next to your summary; stay consistent with them):', ...options.pins.map((p) => `- ${p}`));
  out.push('Use exactly these sections (write "none" under a section with nothing to say):', ...SUMMARY_SECTIONS);
  if (options.focus?.trim()) out.push(`Focus: the user asked this summary to keep above all: ${options.focus.trim()}`);
  return {
    model: prefix.model,
    system: [...prefix.system],
    messages: [...view, { role: 'user', content: [{ type: 'text', text: out.join('\n') }], timestamp: Date.now() }],
    tools: [...prefix.tools],
    ...(prefix.deferredTools?.length ? { deferredTools: [...prefix.deferredTools] } : {}),
    ...(prefix.thinking ? { thinking: prefix.thinking } : {}),
    ...(prefix.cacheLifetime ? { cacheLifetime: prefix.cacheLifetime } : {}),
    cacheTail: true,
    maxOutputTokens: Math.min(outputWithThinking(options.maxOutputTokens ?? 2000, prefix.thinking), prefix.maxOutput ?? Infinity),
  };
}

function snippet(m: Message): string {
  const text = m.content
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
