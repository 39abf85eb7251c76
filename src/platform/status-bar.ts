import { statusAt } from '../context/compaction/context-status';
import * as vscode from 'vscode';
import type { Thresholds } from '../context/settings';

/**
 * The status bar item "$(dashboard) 42 %": how full the context window is — the same figure as the
 * panel's meter — coloured from the note threshold on (warning) and from the compact threshold on
 * (error), which compare against the effective window. Clicking it opens the panel.
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
    const pct = Math.round((usage.used / Math.max(1, usage.contextWindow)) * 100);
    this.item.text = `$(dashboard) ${pct} %`;
    const fmt = (n: number) => n.toLocaleString('en-US');
    this.item.tooltip = vscode.l10n.t(
      'Headroom: {0} of {1} tokens ({2} %); {3} % of the {4} usable after the output reservation. Compacts at {5} % of those. Click to open the panel.',
      fmt(usage.used),
      fmt(usage.contextWindow),
      String(pct),
      String(Math.round(usage.ratio * 100)),
      fmt(usage.effectiveWindow),
      String(Math.round(thresholds.compact * 100)),
    );
    // The one threshold rule (`statusAt`), the same the gate and the meter classify with.
    const status = statusAt(usage.ratio, thresholds);
    this.item.backgroundColor =
      status === 'compact' || status === 'block'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : status === 'note'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.accessibilityInformation = { label: vscode.l10n.t('Headroom context {0} percent used', String(pct)), role: 'button' };
  }

  dispose(): void {
    this.item.dispose();
  }
}
