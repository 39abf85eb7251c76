import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OverwriteAnswer } from '../app/checkpoint-actions';
import { errorMessage } from '../common/errors';

export const CHECKPOINT_SCHEME = 'headroom-checkpoint';

/** What the documents read: a file's text before a turn, and where that file is now (absolute). */
export type CheckpointDiffSource = (turn: number, path: string) => Promise<{ before: string; current: string }>;

/**
 * A turn's changes in VS Code's diff editor: the left side is the file as it was before the turn, a
 * read-only document (`headroom-checkpoint:/<turn>/<path>`), the right side is the file in the
 * workspace now (an empty document when it no longer exists).
 */
export class CheckpointDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;

  constructor(private readonly source: CheckpointDiffSource) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const parsed = parseUri(uri);
    if (!parsed) return '';
    try {
      return (await this.source(parsed.turn, parsed.path)).before;
    } catch (err) {
      return `Headroom could not read the checkpoint: ${errorMessage(err)}`;
    }
  }

  /** Opens the diff of `file` between before turn `turn` and now. */
  async open(turn: number, file: string): Promise<void> {
    const { current } = await this.source(turn, file);
    const before = vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${turn}/${file}` });
    const exists = await vscode.workspace.fs.stat(vscode.Uri.file(current)).then(
      () => true,
      () => false,
    );
    const after = exists ? vscode.Uri.file(current) : vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/0/${file}`, query: 'gone' });
    await vscode.commands.executeCommand('vscode.diff', before, after, `${path.basename(file)} (before turn ${turn} ↔ now)`, {
      preview: true,
    });
  }

  dispose(): void {
    this.registration.dispose();
  }
}

function parseUri(uri: vscode.Uri): { turn: number; path: string } | undefined {
  const m = /^\/(\d{1,9})\/(.+)$/.exec(uri.path);
  const turn = Number(m?.[1]);
  return m && turn > 0 ? { turn, path: m[2] } : undefined;
}

/** Asks (a modal) whether to overwrite files the person changed after the turn. */
export async function confirmOverwrite(paths: string[]): Promise<OverwriteAnswer> {
  const overwrite = vscode.l10n.t('Overwrite');
  const keep = vscode.l10n.t('Keep My Changes');
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('{0} changed after this turn. Overwrite with the content from before the turn?', shown),
    { modal: true, detail: vscode.l10n.t('Keep My Changes restores the other files and leaves these as they are.') },
    overwrite,
    keep,
  );
  return choice === overwrite ? 'overwrite' : choice === keep ? 'keep' : 'cancel';
}
