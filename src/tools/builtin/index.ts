/**
 * The built-in tools, in the order they are offered to the model. Built-ins are never deferred, except
 * in a small context window those whose definition says `deferWhenSmall` (`DeferralPolicy.setSmallWindow`).
 */
import type { Tool } from '../define-tool';
import type { ToolSearchPort } from '../deferral';
import type { CompactPort, HistorySearchPort } from '../ports';
import { createCompactContextTool } from './compact-context';
import { editFileTool } from './edit-file';
import { listFilesTool } from './list-files';
import { readFileTool } from './read-file';
import { readResultTool } from './read-result';
import { runCommandTool } from './run-command';
import { searchTextTool } from './search-text';
import { createToolSearchTool } from './tool-search';
import { updatePlanTool } from './update-plan';
import { createSearchHistoryTool } from './search-history';
import { writeFileTool } from './write-file';

export interface BuiltinToolDeps {
  /** Usually the registry's `DeferralPolicy`. */
  toolSearch: ToolSearchPort;
  /** Without it, `compact_context` is not offered. */
  compact?: CompactPort;
  /** Without it, `search_history` is not offered. */
  history?: HistorySearchPort;
}

export function createBuiltinTools(deps: BuiltinToolDeps): Tool[] {
  const tools = [
    readFileTool,
    listFilesTool,
    searchTextTool,
    editFileTool,
    writeFileTool,
    runCommandTool,
    readResultTool,
    createToolSearchTool(deps.toolSearch),
    updatePlanTool,
  ];
  if (deps.compact) tools.push(createCompactContextTool(deps.compact));
  if (deps.history) tools.push(createSearchHistoryTool(deps.history));
  return tools;
}

export { readFileTool, listFilesTool, searchTextTool, editFileTool, writeFileTool, runCommandTool, readResultTool, updatePlanTool };
export { UpdatePlanInput } from './update-plan';
export { createToolSearchTool, createCompactContextTool, createSearchHistoryTool };
