import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateHeadroom, EXTENSION_ID, waitFor } from './helpers';

describe('commands in a real extension host', () => {
  it('registers every command package.json contributes, under the Headroom category', async () => {
    await activateHeadroom();
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
      contributes: { commands: Array<{ command: string; category?: string }> };
    };
    const contributed = manifest.contributes.commands;
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of contributed) {
      assert.ok(registered.has(c.command), `${c.command} is registered`);
      assert.equal(c.category, 'Headroom');
    }
    assert.ok(contributed.some((c) => c.command === 'headroom.focusPanel'));
    assert.ok(contributed.some((c) => c.command === 'headroom.showLog'));
  });

  it('Show Log and Focus Panel work: the panel resolves and talks to the host', async () => {
    const api = await activateHeadroom();
    // A failing command rejects here (register.ts rethrows after telling the user).
    await vscode.commands.executeCommand('headroom.showLog');
    const posted = waitFor(api.panel.onDidPost, (m) => m, 30_000, 'the panel to post its first message');
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await vscode.commands.executeCommand('headroom.focusPanel');
    assert.ok(await posted, 'the focused panel received a message from the host');
  });

  it('Show Context Breakdown opens a read-only view that never asks to be saved', async () => {
    await activateHeadroom();
    await vscode.commands.executeCommand('headroom.showContextBreakdown');
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc, 'an editor shows the breakdown');
    assert.equal(doc.uri.scheme, 'headroom-view', 'a view document, not an untitled one');
    assert.equal(doc.isUntitled, false);
    assert.equal(doc.isDirty, false, 'closing it asks nothing');
    assert.equal(doc.languageId, 'markdown');
    assert.match(doc.uri.path, /Context breakdown\.md$/, 'the tab says what it is');
    assert.match(doc.getText(), /\|/, 'the breakdown table');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
