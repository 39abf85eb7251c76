import * as vscode from 'vscode';
import type { ContextUsage } from '../agent/events';
import { statusBarText } from '../panel/meter-view';

/**
 * The status bar item "$(dashboard) 42 %": how full the context window is. It is the panel meter's
 * own view model (`meterFromUsage`): the same used figure, percent, status and distance to
 * auto-compaction, in the same formatting. Coloured from the note status on (warning) and from the
 * compact status on (error): the gate classified it with the one threshold rule. Clicking it opens
 * the panel.
 */
export class ContextStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('headroom.context', vscode.StatusBarAlignment.Right, 100);

  constructor() {
    this.item.name = vscode.l10n.t('Headroom Context');
    this.item.command = 'headroom.focusPanel';
    this.item.text = '$(dashboard) –';
    this.item.tooltip = vscode.l10n.t('Headroom: context use not measured yet. Click to open the panel.');
    this.item.show();
  }

  update(usage: ContextUsage): void {
    const text = statusBarText(usage);
    this.item.text = `$(dashboard) ${text.percent}`;
    this.item.tooltip = vscode.l10n.t('Headroom: {0}. Click to open the panel.', text.tooltip);
    this.item.backgroundColor =
      text.level === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : text.level === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.accessibilityInformation = {
      label: vscode.l10n.t('Headroom context {0} percent used', String(text.wholePercent)),
      role: 'button',
    };
  }

  dispose(): void {
    this.item.dispose();
  }
}
