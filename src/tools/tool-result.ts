/** Small factories for tool results, so every tool and wrapper builds them the same way. */
import type { ErrorKind } from '../common/errors';
import type { ImagePart, TextPart, ToolResultMessage } from '../providers/types';

/**
 * A tool result as the tool layer returns it: a `ToolResultMessage` plus, for failures, the kind
 * of error (`invalid_tool_input`, `tool_failed`, `aborted`) so the loop and UI can branch on it.
 */
export interface ToolResult extends ToolResultMessage {
  errorKind?: ErrorKind;
}

export function textResult(call: { id: string; name: string }, content: string | Array<TextPart | ImagePart>, isError = false): ToolResult {
  return {
    role: 'toolResult',
    toolCallId: call.id,
    toolName: call.name,
    content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
    isError,
    timestamp: Date.now(),
  };
}

export function errorResult(call: { id: string; name: string }, kind: ErrorKind, text: string): ToolResult {
  return { ...textResult(call, text, true), errorKind: kind };
}

export { resultText } from '../providers/tool-result-text';
