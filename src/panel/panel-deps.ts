/**
 * The seam between the panel and the rest of Headroom: what the composition root supplies. The panel
 * dispatches the webview's intents to the same `HostActions` the palette commands call. Pure types
 * (no vscode import beyond types).
 */
import type * as vscode from 'vscode';
import type { HostActions } from '../app/host-actions';
import type { SnapshotView } from '../protocol/messages';

/** What the panel needs from the rest of the extension; supplied by the composition root. */
export interface ChatViewDeps {
  readonly extensionUri: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  /**
   * What the webview's intents run. Each may reject: the panel shows the error in its banner and logs it.
   * The actions refresh the panel's history themselves (see `HostActions`).
   */
  readonly actions: HostActions;
  /**
   * The static facts of the snapshot (version, workspace, trust, session, config with hasApiKey); may
   * be async (reads secrets). The panel fills in `items`, `meter` and `running` itself.
   */
  snapshot(): Promise<SnapshotView>;
}
