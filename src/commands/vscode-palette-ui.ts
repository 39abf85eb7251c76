import * as vscode from 'vscode';
import type { PaletteUi } from './palette-ui';

/** The scheme of the read-only documents the palette opens (Show Context Breakdown). */
export const VIEW_SCHEME = 'headroom-view';

/**
 * The palette commands' UI port on VS Code: quick picks, input boxes, notifications, l10n. A document
 * it opens is a read-only view (`headroom-view:`), not an untitled editor that asks to be saved when
 * it is closed. Dispose it with the host.
 */
export function createVscodePaletteUi(): PaletteUi & vscode.Disposable {
  const views = new Map<string, string>();
  let opened = 0;
  const registration = vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, {
    provideTextDocumentContent: (uri) => views.get(uri.path) ?? '',
  });
  return {
    t: (message, ...args) => vscode.l10n.t(message, ...args),
    pick: async (items, options) => vscode.window.showQuickPick([...items], options),
    input: async (options) => vscode.window.showInputBox(options),
    info: (message) => void vscode.window.showInformationMessage(message),
    openMarkdown: async (content, title = 'Headroom') => {
      // Each opening is its own document (a view of that moment); the few kept are small text.
      const path = `/${++opened}/${title.replace(/[\\/:*?"<>|]/g, ' ')}.md`;
      views.set(path, content);
      if (views.size > 20) views.delete(views.keys().next().value!);
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: VIEW_SCHEME, path }));
      await vscode.window.showTextDocument(doc, { preview: true });
    },
    dispose: () => {
      registration.dispose();
    },
  };
}
