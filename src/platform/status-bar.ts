import * as vscode from 'vscode';
import type { Thresholds } from '../context/settings';

/**
 * The status bar item "$(dashboard) 42 %": how full the context is (of the effective window, the
 * figure thresholds compare against), coloured from the note threshold on (warning) and from the
 * compact threshold on (error). Clicking it opens the panel.
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

  update(usage: { used: number; effectiveWindow: number; contextWindow: number; ratio: number }, thresholds: Thresholds): void {
    const pct = Math.round(usage.ratio * 100);
    this.item.text = `$(dashboard) ${pct} %`;
    const fmt = (n: number) => n.toLocaleString('en-US');
    this.item.tooltip = vscode.l10n.t(
      'Headroom: {0} of {1} usable tokens ({2} %); window {3}. Compacts at {4} %. Click to open the panel.',
      fmt(usage.used),
      fmt(usage.effectiveWindow),
      String(pct),
      fmt(usage.contextWindow),
      String(Math.round(thresholds.compact * 100)),
    );
    this.item.backgroundColor =
      usage.ratio >= thresholds.compact
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : usage.ratio >= thresholds.note
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.accessibilityInformation = { label: vscode.l10n.t('Headroom context {0} percent used', String(pct)), role: 'button' };
  }

  dispose(): void {
    this.item.dispose();
  }
}
