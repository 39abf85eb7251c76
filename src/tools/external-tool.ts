/**
 * Wraps a tool from the `ExternalToolPort` (vscode.lm.tools, MCP) as a `Tool`: same never-throwing
 * `invoke`, timeout and abort handling as built-ins; input validation is left to the tool itself.
 */
import type { ToolDefinition } from '../providers/types';
import { runGuarded, type Tool } from './define-tool';
import type { ExternalToolPort } from './ports';
import { errorResult } from './tool-result';

export const DEFAULT_EXTERNAL_TIMEOUT_MS = 120_000;

export function externalTool(definition: ToolDefinition, port: ExternalToolPort, timeoutMs = DEFAULT_EXTERNAL_TIMEOUT_MS): Tool {
  return {
    name: definition.name,
    definition,
    requiresApproval: false,
    mutates: false,
    async invoke(call, ctx) {
      if (call.rawArguments !== undefined) {
        return errorResult(
          call,
          'invalid_tool_input',
          `Invalid input for ${definition.name}: the arguments are not valid JSON. Call it again with a JSON object matching its input schema.`,
        );
      }
      return runGuarded(call, ctx, timeoutMs, (execCtx) => port.invoke(definition.name, call.arguments ?? {}, execCtx.signal));
    },
  };
}
