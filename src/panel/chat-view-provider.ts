import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import { Emitter } from '../common/emitter';
import { errorMessage } from '../common/errors';
import { createWebviewDispatcher, WebviewHandlers } from '../protocol/dispatch';
import { HostToWebview, PROTOCOL_VERSION, SnapshotView } from '../protocol/messages';
import { renderWebviewHtml } from './webview-html';

export { CHAT_VIEW_ID } from './view-ids';

/** What the panel needs from the rest of the extension; supplied by the composition root. */
export interface ChatViewDeps {
  readonly extensionUri: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  /** Builds the current snapshot for the handshake; may be async (reads secrets). */
  snapshot(): Promise<SnapshotView>;
  /** Runs a Headroom command by its short name (same code as the palette). */
  runCommand(name: 'showLog' | 'focusPanel'): Promise<void>;
}

/**
 * The side panel's webview view. Owns no agent state: it validates what the webview sends, hands it
 * to handlers, and posts view models back. Everything it registers is disposed with it.
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private readonly _onDidPost = this._register(new Emitter<HostToWebview>());
  /** Fires for every message posted to the webview (used by integration tests and the log). */
  readonly onDidPost = this._onDidPost.event;
  private readonly dispatch: (raw: unknown) => Promise<void>;

  constructor(private readonly deps: ChatViewDeps) {
    super();
    const handlers: WebviewHandlers = {
      'webview/ready': async (m) => {
        if (m.protocolVersion !== PROTOCOL_VERSION) {
          this.showError(
            `The panel speaks protocol v${m.protocolVersion} but the extension speaks v${PROTOCOL_VERSION}. Reload the window.`,
          );
          return;
        }
        await this.postSnapshot();
      },
      'webview/error': (m) => {
        this.deps.log.error(`[webview] ${m.message}`);
      },
      'command/run': (m) => this.deps.runCommand(m.command),
    };
    this.dispatch = createWebviewDispatcher(
      handlers,
      (error) => this.showError('The panel sent a message Headroom could not accept.', error),
      (err, type) => this.showError(`Handling "${type}" failed: ${errorMessage(err)}`),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.deps.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = renderWebviewHtml(view.webview, media);
    this._register(view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
    this._register(
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
      }),
    );
  }

  /** Entry point for every message from the webview. Never throws. */
  receive(raw: unknown): Promise<void> {
    return this.dispatch(raw);
  }

  async postSnapshot(): Promise<void> {
    try {
      await this.post({ type: 'session/snapshot', snapshot: await this.deps.snapshot() });
    } catch (err) {
      this.showError(`Could not build the session view: ${errorMessage(err)}`);
    }
  }

  /** Logs an error and shows it in the panel's banner. */
  showError(message: string, detail?: string): void {
    this.deps.log.error(detail ? `${message} ${detail}` : message);
    void this.post({ type: 'host/error', message, detail });
  }

  private async post(message: HostToWebview): Promise<void> {
    this._onDidPost.fire(message);
    if (this.view) await this.view.webview.postMessage(message);
  }
}
