import * as vscode from 'vscode';
import type { PaletteUi } from './palette-ui';

/** The palette commands' UI port on VS Code: quick picks, input boxes, notifications, l10n. */
export const vscodePaletteUi: PaletteUi = {
  t: (message, ...args) => vscode.l10n.t(message, ...args),
  pick: async (items, options) => vscode.window.showQuickPick([...items], options),
  input: async (options) => vscode.window.showInputBox(options),
  info: (message) => void vscode.window.showInformationMessage(message),
  openMarkdown: async (content) => {
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content });
    await vscode.window.showTextDocument(doc, { preview: true });
  },
};
