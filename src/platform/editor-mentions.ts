/**
 * The editor's side of @-mentions: the active selection (`@selection`, "Add Selection to Headroom"),
 * the workspace's diagnostics (`@problems`) and opening a mention chip. Paths are shown relative to
 * the workspace folder; a chip's path is confined to the folder again before anything opens.
 */
import * as vscode from 'vscode';
import type { EditorSources } from '../app/host-environment';
import type { Mention } from '../protocol/mentions';
import { resolveInside } from '../tools/path-guard';
import { promises as fs } from 'node:fs';

/** A selection longer than this is cut (a mention is not a way to paste a whole huge file). */
const MAX_SELECTION_CHARS = 1_000_000;

/** Where a document is, as a mention names it: workspace-relative, else its file name. */
function displayPath(uri: vscode.Uri): string {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (folder) return vscode.workspace.asRelativePath(uri, false);
  return uri.path.split('/').pop() || uri.toString();
}

/** The active editor's selection as a range mention; undefined without a non-empty selection. */
export function selectionMention(): Extract<Mention, { kind: 'range' }> | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) return undefined;
  const sel = editor.selection;
  // A selection that ends at column 0 of a line does not include that line.
  const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
  return {
    kind: 'range',
    path: displayPath(editor.document.uri),
    startLine: sel.start.line + 1,
    endLine,
    text: editor.document.getText(sel).slice(0, MAX_SELECTION_CHARS),
  };
}

const SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

/** `@selection` and `@problems`, read when the prompt is sent. */
export const editorSources: EditorSources = {
  selection: () => Promise.resolve(selectionMention()),
  problems: () => Promise.resolve(workspaceProblems()),
};

/** The workspace's errors and warnings, errors first, one line each. */
function workspaceProblems(): string[] {
  const lines: Array<{ severity: number; text: string }> = [];
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    if (!vscode.workspace.getWorkspaceFolder(uri)) continue;
    const where = vscode.workspace.asRelativePath(uri, false);
    for (const d of diagnostics) {
      if (d.severity > vscode.DiagnosticSeverity.Warning) continue;
      const source = d.source ? ` [${d.source}]` : '';
      const text = d.message.replace(/\s+/g, ' ').slice(0, 500);
      const at = `${where}:${d.range.start.line + 1}:${d.range.start.character + 1}`;
      lines.push({ severity: d.severity, text: `${at} ${SEVERITY[d.severity]}${source}: ${text}` });
    }
  }
  // Errors first (a stable sort keeps each file's order).
  return lines.sort((a, b) => a.severity - b.severity).map((l) => l.text);
}

/** Opens a chip's workspace file at `line`, or reveals a folder in the Explorer. Paths outside the folder are refused. */
export async function openMention(path: string, line?: number): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('No folder is open.');
  const root = folder.uri.fsPath;
  const abs = await resolveInside(root, await fs.realpath(root), path.replace(/:\d+(-\d+)?$/, ''));
  const uri = vscode.Uri.file(abs);
  const st = await fs.stat(abs);
  if (st.isDirectory()) {
    await vscode.commands.executeCommand('revealInExplorer', uri);
    return;
  }
  const at = line ? new vscode.Position(line - 1, 0) : undefined;
  await vscode.window.showTextDocument(uri, { preview: true, ...(at ? { selection: new vscode.Range(at, at) } : {}) });
}
