import * as vscode from 'vscode';
import type { ExternalToolPort } from '../tools/ports';
import type { ToolDefinition } from '../providers/types';

/**
 * External tools from `vscode.lm.tools` (this includes MCP servers configured in VS Code), invoked
 * with `vscode.lm.invokeTool`. Text parts of the result are joined; other parts are described.
 */
export function createLmToolPort(): ExternalToolPort {
  return {
    list(): ToolDefinition[] {
      return (vscode.lm?.tools ?? []).map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: (t.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
      }));
    },
    async invoke(name, input, signal) {
      const cts = new vscode.CancellationTokenSource();
      const onAbort = () => cts.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cts.token);
        return result.content
          .map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : `[${(part as object).constructor?.name ?? 'non-text'} part]`))
          .join('\n');
      } finally {
        signal.removeEventListener('abort', onAbort);
        cts.dispose();
      }
    },
  };
}
