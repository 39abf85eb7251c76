import * as vscode from 'vscode';
import { readCommandEnvAllowList, readSecretFilesAllow } from '../config/settings';
import { commandEnvironment } from '../tools/command-env';
import { commandLauncher, launcherNote } from '../tools/command-launcher';
import { createNodeWorkspace } from '../tools/node-workspace';
import { findRipgrep } from '../tools/ripgrep-path';
import type { WorkspacePort } from '../tools/ports';

/**
 * The workspace port for tools inside VS Code: file access and commands through the node
 * implementation (paths confined to the folder), search through the ripgrep VS Code ships, and
 * edits of existing files applied as one WorkspaceEdit so they are undoable in the editor and open
 * editors stay in sync.
 */
export function createVscodeWorkspace(folder: vscode.WorkspaceFolder, log: vscode.LogOutputChannel): WorkspacePort {
  const rgPath = findRipgrep(vscode.env.appRoot);
  if (!rgPath) log.warn(`ripgrep not found under ${vscode.env.appRoot}; search_text uses the built-in fallback`);
  const commandEnvAllowList = readCommandEnvAllowList();
  const base = createNodeWorkspace(folder.uri.fsPath, { rgPath, commandEnvAllowList, secretFilesAllow: readSecretFilesAllow() });
  logScrubbedOnce(log, commandEnvironment(process.env, commandEnvAllowList).removed);
  return {
    ...base,
    async applyEdit(path, newContent) {
      const uri = vscode.Uri.file(await base.resolvePath(await base.resolveWriteTarget(path)));
      const doc = await vscode.workspace.openTextDocument(uri);
      const edit = new vscode.WorkspaceEdit();
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), newContent);
      if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code refused the edit to "${path}" (is the file read-only?)`);
      if (!(await doc.save())) throw new Error(`The edit to "${path}" was applied but could not be saved`);
    },
  };
}

let lastScrubbed = '';
let launcherLogged = false;

/** Says how many variables commands do not get (never their values), when that changes, and how commands start. */
function logScrubbedOnce(log: vscode.LogOutputChannel, removed: string[]): void {
  if (!launcherLogged) {
    launcherLogged = true;
    void commandLauncher().then((l) => log.info(launcherNote(l)));
  }
  const key = removed.join(',');
  if (key === lastScrubbed) return;
  lastScrubbed = key;
  if (removed.length)
    log.info(
      `run_command: commands get only the path, home, locale and terminal variables; ${removed.length} other variable(s) ` +
        'are withheld (pass some with headroom.commandEnvAllowList)',
    );
}
