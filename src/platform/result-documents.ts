import * as vscode from 'vscode';
import { errorMessage } from '../common/errors';

export const RESULT_SCHEME = 'headroom-result';

/**
 * Offloaded tool results as read-only editor documents (`headroom-result:/<refId>.txt`), so a person
 * can read the full output the model only saw a stub of.
 */
export class ResultDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;

  constructor(private readonly read: (refId: string) => Promise<string>) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const refId = uri.path.replace(/^\//, '').replace(/\.txt$/, '');
    try {
      return await this.read(refId);
    } catch (err) {
      return `Headroom could not read stored result ${refId}: ${errorMessage(err)}`;
    }
  }

  async open(refId: string): Promise<void> {
    if (!/^[\w-]{1,80}$/.test(refId)) throw new Error(`"${refId.slice(0, 80)}" is not a stored result id.`);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${refId}.txt` }));
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
  }
}
