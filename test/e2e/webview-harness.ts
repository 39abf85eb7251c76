/**
 * Loads the built panel (media/webview.js + webview.css) into a plain Chromium page with a stub
 * `acquireVsCodeApi`, so the UI can be driven with host messages without a VS Code: used by the
 * `panel` bench and for quick screenshots. Session data is built with Headroom's own mapping
 * (messagesToItems, ContextBudget → meterFromBudget), never hand-written view models.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from '../../scripts/lib/code-server.mjs';
import { ContextBudget } from '../../src/context/budget';
import { resolveModelLimits } from '../../src/context/models';
import { toHistoryView } from '../../src/panel/history-view';
import { providerChoices } from '../../src/panel/config-view';
import { meterFromBudget } from '../../src/panel/meter-view';
import { messagesToItems } from '../../src/panel/transcript-items';
import { HostToWebview, PROTOCOL_VERSION } from '../../src/protocol/messages';
import type { Message } from '../../src/providers/types';

/** A dark theme's worth of --vscode-* variables (what VS Code injects into a webview). */
const DARK_VARS = `
  --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace;
  --vscode-foreground: #cccccc; --vscode-descriptionForeground: #9d9d9d; --vscode-sideBar-background: #181818;
  --vscode-panel-border: #2b2b2b; --vscode-button-background: #0078d4; --vscode-button-foreground: #ffffff;
  --vscode-button-hoverBackground: #026ec1; --vscode-button-secondaryBackground: #313131; --vscode-button-secondaryForeground: #cccccc;
  --vscode-input-background: #313131; --vscode-input-foreground: #cccccc; --vscode-input-border: #3c3c3c;
  --vscode-focusBorder: #0078d4; --vscode-textLink-foreground: #4daafc; --vscode-textCodeBlock-background: #2b2b2b;
  --vscode-charts-blue: #3794ff; --vscode-charts-red: #f14c4c; --vscode-charts-yellow: #cca700; --vscode-charts-orange: #d18616;
  --vscode-charts-green: #89d185; --vscode-charts-purple: #b180d7; --vscode-editorWarning-foreground: #cca700;
  --vscode-editorError-foreground: #f14c4c; --vscode-errorForeground: #f85149; --vscode-editorHoverWidget-background: #202020;
  --vscode-editorHoverWidget-border: #454545; --vscode-inputValidation-errorBackground: #5a1d1d; --vscode-inputValidation-errorBorder: #be1100;
  --vscode-debugTokenExpression-name: #c586c0; --vscode-debugTokenExpression-string: #ce9178; --vscode-debugTokenExpression-number: #b5cea8;
  --vscode-debugTokenExpression-boolean: #4e94ce; --vscode-debugTokenExpression-type: #4a90e2; --vscode-debugTokenExpression-error: #f48771;
  --vscode-symbolIcon-functionForeground: #b180d7; --vscode-symbolIcon-variableForeground: #75beff;
  --vscode-progressBar-background: #0078d4;
`;

/** Light Modern's values for the same variables (the panel must read well in both). */
export const LIGHT_VARS = `
  --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace;
  --vscode-foreground: #3b3b3b; --vscode-descriptionForeground: #616161; --vscode-sideBar-background: #f8f8f8;
  --vscode-panel-border: #e5e5e5; --vscode-button-background: #005fb8; --vscode-button-foreground: #ffffff;
  --vscode-button-hoverBackground: #0258a8; --vscode-button-secondaryBackground: #e5e5e5; --vscode-button-secondaryForeground: #3b3b3b;
  --vscode-input-background: #ffffff; --vscode-input-foreground: #3b3b3b; --vscode-input-border: #cecece;
  --vscode-focusBorder: #005fb8; --vscode-textLink-foreground: #005fb8; --vscode-textCodeBlock-background: #f8f8f8;
  --vscode-charts-blue: #1a85ff; --vscode-charts-red: #e51400; --vscode-charts-yellow: #bf8803; --vscode-charts-orange: #d18616;
  --vscode-charts-green: #388a34; --vscode-charts-purple: #652d90; --vscode-editorWarning-foreground: #bf8803;
  --vscode-editorError-foreground: #e51400; --vscode-errorForeground: #f85149; --vscode-editorHoverWidget-background: #f8f8f8;
  --vscode-editorHoverWidget-border: #c8c8c8; --vscode-inputValidation-errorBackground: #f2dede; --vscode-inputValidation-errorBorder: #be1100;
  --vscode-progressBar-background: #005fb8;
`;

/** The harness page: VS Code-like variables, #app, a stub webview API that records what the panel sends. */
export function harnessHtml(vars = DARK_VARS, state?: unknown): string {
  const css = readFileSync(join(ROOT, 'media', 'webview.css'), 'utf8');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Headroom</title><style>html{${vars}}</style><style>${css}</style></head>
<body><div id="app"></div><script>
window.__sent = []; window.__state = ${JSON.stringify(state ?? null).replace(/</g, '\\u003c')} ?? undefined;
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sent.push(m), getState: () => window.__state, setState: (s) => { window.__state = s; } });
</script></body></html>`;
}

/** Opens the harness in `page` and runs the panel bundle; resolves when it has said webview/ready. */
export async function loadPanel(page: Page, state?: unknown, vars = DARK_VARS): Promise<void> {
  await page.setContent(harnessHtml(vars, state));
  await page.addScriptTag({ content: readFileSync(join(ROOT, 'media', 'webview.js'), 'utf8') });
  await page.waitForFunction(() =>
    (window as unknown as { __sent: Array<{ type: string }> }).__sent.some((m) => m.type === 'webview/ready'),
  );
}

/** A realistic session of `count` messages: prompts, answers with markdown and code, tool calls and results. */
export function sessionMessages(count: number): Message[] {
  const out: Message[] = [];
  const t = 1_763_800_000_000;
  for (let i = 0; out.length < count; i++) {
    out.push({
      role: 'user',
      content: [{ type: 'text', text: `Please look at module ${i} and fix the failing test in src/m${i}.ts.` }],
      timestamp: t + i,
    });
    if (out.length >= count) break;
    out.push({
      role: 'assistant',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: 'toolUse',
      timestamp: t + i,
      usage: { input: 1200, output: 300, cacheRead: 9000, cacheWrite: 0 },
      content: [
        {
          type: 'text',
          text: `I'll read **src/m${i}.ts** first. The test expects \`parse()\` to accept:\n\n- empty input\n- a trailing comma\n\n\`\`\`ts\nexport function parse(s: string) {\n  return s.split(',').filter(Boolean);\n}\n\`\`\``,
        },
        { type: 'toolCall', id: `call_${i}`, name: 'read_file', arguments: { path: `src/m${i}.ts` } },
      ],
    });
    if (out.length >= count) break;
    out.push({
      role: 'toolResult',
      toolCallId: `call_${i}`,
      toolName: 'read_file',
      isError: false,
      timestamp: t + i,
      content: [{ type: 'text', text: 'const x = 1;\n'.repeat(40) }],
      ...(i % 5 === 0 ? { refId: `res_${i}` } : {}),
    });
  }
  return out;
}

/** session/snapshot + history/list for a session of `count` messages, as the host would send them. */
export function sessionFixture(count: number, hasApiKey: boolean | null = true): { snapshot: HostToWebview; history: HostToWebview } {
  const messages = sessionMessages(count);
  const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic');
  const budget = new ContextBudget(
    limits,
    { system: 3_100, rules: 900, tools: 7_400, deferredTools: 600, summary: 2_400, messages: 41_000, toolResults: 27_800 },
    {
      errorBand: 0.05,
      cacheReadShare: 0.87,
      deferredCount: 4,
      deferredSavedTokens: 5_200,
    },
  );
  const snapshot: HostToWebview = {
    type: 'session/snapshot',
    snapshot: {
      protocolVersion: PROTOCOL_VERSION,
      extensionVersion: '0.1.0',
      workspaceName: 'bench',
      storageAvailable: true,
      trusted: true,
      session: { id: 'ses_bench', title: 'Fix the parser tests', messageCount: messages.length },
      config: { provider: 'anthropic', providers: providerChoices(), model: 'claude-sonnet-4-5', hasApiKey },
      items: messagesToItems(messages),
      meter: meterFromBudget(budget.toViewModel()),
      running: false,
    },
  };
  const history: HostToWebview = {
    type: 'history/list',
    history: toHistoryView(
      {
        sessions: Array.from({ length: 30 }, (_, i) => ({
          id: `ses_${i}`,
          title: `Session ${i}`,
          createdAt: 1_763_800_000_000 + i * 3_600_000,
          updatedAt: 1_763_800_000_000 + i * 3_600_000,
          messageCount: 10 * i,
          bytes: 4096 * i,
        })),
        snapshots: [],
        currentSessionId: 'ses_0',
        canUndoCompaction: false,
        timeline: [],
      },
      (ms) => new Date(ms).toISOString().slice(0, 16).replace('T', ' '),
    ),
  };
  return { snapshot, history };
}
