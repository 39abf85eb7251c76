import * as vscode from 'vscode';
import { describeOrigin, offerableOrigin } from '../tools/external-tools-policy';
import type { ExternalToolDefinition, ExternalToolPort } from '../tools/ports';

/** True for an extension shipped with VS Code (its manifest carries `isBuiltin`). */
function isBuiltinExtension(id: string): boolean {
  const ext = vscode.extensions.getExtension(id);
  return (ext?.packageJSON as { isBuiltin?: unknown } | undefined)?.isBuiltin === true;
}

/**
 * External tools from `vscode.lm.tools` (this includes MCP servers configured in VS Code), invoked
 * with `vscode.lm.invokeTool`. Only tools of third-party extensions and MCP servers are listed
 * (`offerableOrigin`): VS Code's internal tools never reach the model. Text parts of the result are
 * joined; other parts are described.
 */
export function createLmToolPort(): ExternalToolPort {
  return {
    list(): ExternalToolDefinition[] {
      const out: ExternalToolDefinition[] = [];
      // `source` is newer than our @types/vscode; read it by shape.
      for (const t of (vscode.lm?.tools ?? []) as ReadonlyArray<vscode.LanguageModelToolInformation & { source?: unknown }>) {
        const origin = offerableOrigin({ name: t.name, source: t.source }, { isBuiltinExtension });
        if (!origin) continue;
        out.push({
          name: t.name,
          description: t.description,
          inputSchema: (t.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
          origin: describeOrigin(origin),
        });
      }
      return out;
    },
    async invoke(name, input, signal) {
      const cts = new vscode.CancellationTokenSource();
      const onAbort = () => cts.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cts.token);
        return result.content
          .map((part) =>
            part instanceof vscode.LanguageModelTextPart ? part.value : `[${(part as object).constructor?.name ?? 'non-text'} part]`,
          )
          .join('\n');
      } finally {
        signal.removeEventListener('abort', onAbort);
        cts.dispose();
      }
    },
  };
}
