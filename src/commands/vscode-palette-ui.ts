import * as vscode from 'vscode';
import type { LivePick, LivePickItem, LivePickOptions, PaletteUi, PickButton } from './palette-ui';

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
    livePick: (options) => livePick(options),
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

/**
 * A quick pick whose items come from the caller's search. Every item is `alwaysShow` and its label is
 * a codicon only: VS Code hides items the typed text does not fuzzy-match and moves label matches to
 * the top in its own order, which would undo the search's order (current session first, then newest).
 * The detail is still matched, so VS Code highlights the hit there.
 */
function livePick<T extends LivePickItem>(options: LivePickOptions): LivePick<T> {
  type Entry = vscode.QuickPickItem & { readonly source: T };
  const qp = vscode.window.createQuickPick<Entry>();
  qp.title = options.title;
  qp.placeholder = options.placeHolder;
  qp.matchOnDescription = false;
  qp.matchOnDetail = true;
  const buttons = new Map<vscode.QuickInputButton, PickButton>();
  const buttonOf = (b: PickButton) => {
    const button = { iconPath: new vscode.ThemeIcon(b.icon), tooltip: b.tooltip };
    buttons.set(button, b);
    return button;
  };
  const answer = new Promise<{ item: T; button?: PickButton } | undefined>((resolve) => {
    qp.onDidChangeValue((value) => options.onValue(value));
    qp.onDidAccept(() => {
      const picked = qp.selectedItems[0] ?? qp.activeItems[0];
      if (!picked) return;
      resolve({ item: picked.source });
      qp.hide();
    });
    qp.onDidTriggerItemButton((e) => {
      resolve({ item: e.item.source, button: buttons.get(e.button) });
      qp.hide();
    });
    qp.onDidHide(() => {
      resolve(undefined);
      qp.dispose();
    });
  });
  qp.show();
  return {
    show: (items, state) => {
      // The item under the cursor stays under it while a search adds the next session's hits.
      const active = qp.activeItems[0]?.source;
      buttons.clear();
      qp.keepScrollPosition = true;
      qp.items = items.map((source) => ({
        label: source.label,
        description: source.description,
        detail: source.detail,
        alwaysShow: true,
        buttons: source.buttons?.map(buttonOf),
        source,
      }));
      const again = active && qp.items.find((e) => e.source === active);
      if (again) qp.activeItems = [again];
      qp.busy = state.busy;
      qp.title = state.summary ? `${options.title} · ${state.summary}` : options.title;
    },
    answer,
  };
}
