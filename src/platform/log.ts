import * as vscode from 'vscode';

/** The "Headroom" log channel. Everything Headroom logs goes here; secrets never do. */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Headroom', { log: true });
}
