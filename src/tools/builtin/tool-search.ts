import { z } from 'zod';
import { defineTool, type Tool, type ToolOutput } from '../define-tool';
import type { ToolSearchPort } from '../deferral';

/** `tool_search`: finds deferred tools by keywords and activates the matches. */
export function createToolSearchTool(port: ToolSearchPort): Tool {
  return defineTool({
    name: 'tool_search',
    description:
      'Find tools that were deferred to save context (their definitions are not loaded). Give keywords describing what you need; ' +
      'matching tools are returned with their input schemas and become callable right away.',
    brief: 'Find deferred tools by keywords; they become callable.',
    input: z.object({
      query: z.string().min(1).describe('Keywords, e.g. "github pull request" or a tool name'),
      limit: z.number().int().min(1).max(20).default(5).describe('Maximum number of tools to return'),
    }),
    timeoutMs: 10_000,
    neverOffload: true,
    keepInContext: true,
    execute({ query, limit }) {
      return Promise.resolve(searchAndActivate(port, query, limit));
    },
  });
}

/**
 * The found tools with their schemas as text; loaded by reference, the result also names them, so a
 * request that declares them deferred sends references the provider expands in place (`ToolResultMessage.toolReferences`).
 */
function searchAndActivate(port: ToolSearchPort, query: string, limit: number): ToolOutput {
  const found = port.search(query, limit);
  if (found.length === 0) return `No deferred tool matches "${query}". Try other keywords; tools already in your tool list need no search.`;
  for (const def of found) port.activate(def.name);
  const listed = found.map((d) => ({ name: d.name, description: d.description, input_schema: d.inputSchema }));
  const text = `Activated ${found.length} tool${found.length === 1 ? '' : 's'}; call ${found.length === 1 ? 'it' : 'them'} directly:\n${JSON.stringify(listed)}`;
  return port.byReference ? { content: text, toolReferences: found.map((d) => d.name) } : text;
}
