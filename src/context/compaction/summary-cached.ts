/**
 * The cache-preserving summary request: the agent's exact prefix — its system sections,
 * tool definitions and the conversation as last sent — followed by one instruction message, with tool
 * use disabled. The provider's prompt cache then serves almost all of the input, instead of the whole
 * conversation being sent again uncached as a quoted transcript. Pure; never throws.
 */
import type { Message, ProviderRequest, SystemSection, ToolDefinition } from '../../providers/types';
import { SUMMARY_SECTIONS } from './summary-request';

/** What the agent's last request started with. */
export interface AgentPrefix {
  model: string;
  /** The model's whole context window in tokens (the summary request may use it all but its output and a margin). */
  contextWindow?: number;
  system: readonly SystemSection[];
  tools: readonly ToolDefinition[];
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
    'Stop working on the task for this one reply and do not call any tool. The conversation above is about to be compacted: ' +
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
    toolChoice: 'none',
    cacheTail: true,
    maxOutputTokens: options.maxOutputTokens ?? 2000,
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
