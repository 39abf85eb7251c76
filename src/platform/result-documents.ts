import * as vscode from 'vscode';
import { errorMessage } from '../common/errors';
import { hitRange } from '../tools/history-port';

export const RESULT_SCHEME = 'headroom-result';

/**
 * Offloaded tool results as read-only editor documents (`headroom-result:/<refId>/<title>.txt`), so a
 * person can read the full output the model only saw a stub of. The last path segment is the editor
 * tab's title, so it names the source ("run_command output · 35.9 KB"), not the opaque id.
 */
export class ResultDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;

  /** `sessionId`: the session a `msg_<seq>` ref belongs to when it is not the current one. */
  constructor(private readonly read: (refId: string, sessionId?: string) => Promise<string>) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const refId = uri.path
      .replace(/^\//, '')
      .split('/')[0]
      .replace(/\.txt$/, '');
    // A hit in another session names it in the query (`session=<id>`), so its document is its own.
    const session = /^session=([\w-]{1,80})$/.exec(uri.query)?.[1];
    try {
      return await this.read(refId, session);
    } catch (err) {
      return `Headroom could not read stored result ${refId}: ${errorMessage(err)}`;
    }
  }

  /**
   * Opens a stored result; `title` (e.g. "run_command output · 35.9 KB") names its editor tab. With
   * `find` the editor selects the first hit of those words and scrolls it into the middle. `sessionId`
   * names the session of a `msg_<seq>` ref that is not the current one.
   */
  async open(refId: string, title?: string, find?: string, sessionId?: string): Promise<void> {
    if (!/^[\w-]{1,80}$/.test(refId)) throw new Error(`"${refId.slice(0, 80)}" is not a stored result id.`);
    const name =
      [...(title ?? refId)]
        .map((ch) => (ch < ' ' || '\\/:*?"<>|'.includes(ch) ? ' ' : ch))
        .join('')
        .trim()
        .slice(0, 80) || refId;
    if (sessionId !== undefined && !/^[\w-]{1,80}$/.test(sessionId)) throw new Error(`"${sessionId.slice(0, 80)}" is not a session id.`);
    const query = sessionId ? `session=${sessionId}` : '';
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${refId}/${name}.txt`, query }));
    const editor = await vscode.window.showTextDocument(doc, { preview: true });
    const hit = find ? hitRange(doc.getText(), find) : undefined;
    if (!hit) return;
    const range = new vscode.Range(doc.positionAt(hit.start), doc.positionAt(hit.end));
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenter);
  }

  dispose(): void {
    this.registration.dispose();
  }
}
