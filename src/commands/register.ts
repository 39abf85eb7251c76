import * as vscode from 'vscode';
import { CHAT_VIEW_ID } from '../panel/view-ids';
import { commandHandlers, type HostCommands } from './command-handlers';

export interface CommandDeps {
  readonly log: vscode.LogOutputChannel;
  /** Loads the heavy half on first use (see extension.ts) and returns its command implementations. */
  readonly hostCommands: () => HostCommands;
}

/**
 * Registers every command of the table (`command-table.ts`). The host's commands call the same
 * actions the panel's buttons use (`HostActions`); ids and titles are declared in package.json
 * `contributes.commands`. Anything beyond the trivial goes through the lazily loaded host so
 * activation stays cheap.
 */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const handlers = commandHandlers({
    onActivation: {
      focusPanel: () => vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`),
      showLog: () => deps.log.show(true),
    },
    host: deps.hostCommands,
  });
  for (const { id, run } of handlers) {
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
