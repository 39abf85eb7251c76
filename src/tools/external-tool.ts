/**
 * Wraps a tool from the `ExternalToolPort` (vscode.lm.tools, MCP) as a `Tool`: same never-throwing
 * `invoke`, timeout and abort handling as built-ins; input validation is left to the tool itself.
 * Headroom cannot know what an external tool does, so every one is treated as mutating: refused in
 * an untrusted workspace, and run only after the user approves the call, unless the user
 * allow-listed it (`isAllowListed`).
 */
import { askApproval, rejectedText } from './builtin/approval';
import { runGuarded, untrustedResult, type Tool } from './define-tool';
import { isAllowListed } from './external-tools-policy';
import type { ExternalToolDefinition, ExternalToolPort } from './ports';
import { errorResult } from './tool-result';

export const DEFAULT_EXTERNAL_TIMEOUT_MS = 120_000;

/** Characters of the input shown in the approval; the model's full input is what runs. */
const APPROVAL_INPUT_CHARS = 4000;

export interface ExternalToolOptions {
  timeoutMs?: number;
  /** The user's allow list, read at each call so a settings change applies at once. Default: none. */
  allow?: () => readonly string[];
}

/** True when the user's allow list names the tool; a failing list allows nothing. */
function allowListed(name: string, allow: (() => readonly string[]) | undefined): boolean {
  try {
    return isAllowListed(name, allow?.() ?? []);
  } catch {
    return false;
  }
}

export function externalTool(definition: ExternalToolDefinition, port: ExternalToolPort, options: ExternalToolOptions = {}): Tool {
  const { origin, ...toolDefinition } = definition;
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXTERNAL_TIMEOUT_MS;
  return {
    name: definition.name,
    definition: toolDefinition,
    // External tools are deferred by the budget rule whatever the window; their definition is their own.
    briefDefinition: toolDefinition,
    deferWhenSmall: false,
    requiresApproval: 'tool',
    mutates: true,
    neverOffload: false,
    keepInContext: false,
    async invoke(call, ctx) {
      if (call.rawArguments !== undefined) {
        return errorResult(
          call,
          'invalid_tool_input',
          `Invalid input for ${definition.name}: the arguments are not valid JSON. Call it again with a JSON object matching its input schema.`,
        );
      }
      if (!ctx.trusted) return untrustedResult(call);
      const input = call.arguments ?? {};
      if (!allowListed(definition.name, options.allow)) {
        if (ctx.signal.aborted) return errorResult(call, 'aborted', `${definition.name} was not run: the turn was stopped.`);
        const json = JSON.stringify(input, null, 2);
        const shown =
          json.length > APPROVAL_INPUT_CHARS
            ? `${json.slice(0, APPROVAL_INPUT_CHARS)}\n… [${json.length - APPROVAL_INPUT_CHARS} more characters]`
            : json;
        const decision = await askApproval(
          { ...ctx, toolCallId: call.id },
          { kind: 'tool', toolName: definition.name, toolCallId: call.id, origin: origin ?? 'an external tool', input: shown },
        );
        if (!decision.approved)
          return {
            ...errorResult(call, 'tool_failed', rejectedText(`the call to ${definition.name}`, decision, 'it was not run')),
            decision: 'rejected',
          };
      }
      return runGuarded(call, ctx, timeoutMs, (execCtx) => port.invoke(definition.name, input, execCtx.signal));
    },
  };
}
