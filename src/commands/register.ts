import * as vscode from 'vscode';
import { CHAT_VIEW_ID } from '../panel/view-ids';
import type { Host, HostCommand } from '../platform/host';

/** Commands implemented by the lazily loaded host (ids `headroom.<name>`). */
const HOST_COMMANDS: readonly HostCommand[] = [
  'setApiKey',
  'selectModel',
  'compactContext',
  'clearContext',
  'newSession',
  'stop',
  'showContextBreakdown',
  'openSession',
  'saveSnapshot',
  'restoreSnapshot',
  'undoCompaction',
  'openStoredResult',
  'pin',
  'unpin',
];

export interface CommandDeps {
  readonly log: vscode.LogOutputChannel;
  /** Loads the heavy half on first use (see extension.ts). */
  readonly host: () => Host;
}

/**
 * Registers the `headroom.*` commands. Each is a thin wrapper around the same code the panel's
 * buttons use; ids and titles are declared in package.json `contributes.commands`. Anything beyond
 * the trivial goes through the lazily loaded host so activation stays cheap.
 */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const commands: Record<string, () => unknown> = {
    'headroom.focusPanel': () => vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`),
    'headroom.showLog': () => deps.log.show(true),
  };
  for (const name of HOST_COMMANDS) commands[`headroom.${name}`] = () => deps.host().commands[name]();
  for (const [id, run] of Object.entries(commands)) {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async () => {
        try {
          await run();
        } catch (err) {
          deps.log.error(`${id} failed: ${err instanceof Error ? err.message : String(err)}`);
          void vscode.window.showErrorMessage(vscode.l10n.t('Headroom: {0}', err instanceof Error ? err.message : String(err)));
          // Shown to the user above; rethrown so `executeCommand` callers (tests, keybindings' chains) see it failed.
          throw err;
        }
      }),
    );
  }
}
