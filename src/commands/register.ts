import * as vscode from 'vscode';
import { CHAT_VIEW_ID } from '../panel/view-ids';

export interface CommandDeps {
  readonly log: vscode.LogOutputChannel;
}

/**
 * Registers the `headroom.*` commands. Each command is a thin wrapper around the same code the
 * panel's buttons use; ids and titles are declared in package.json `contributes.commands`.
 */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const commands: Record<string, () => unknown> = {
    'headroom.focusPanel': () => vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`),
    'headroom.showLog': () => deps.log.show(true),
  };
  for (const [id, run] of Object.entries(commands)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  }
}
