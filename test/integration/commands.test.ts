import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateHeadroom, EXTENSION_ID } from './helpers';

describe('commands in a real extension host', () => {
  it('registers every command package.json contributes, under the Headroom category', async () => {
    await activateHeadroom();
    const contributed: Array<{ command: string; category?: string }> =
      vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.commands;
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of contributed) {
      assert.ok(registered.has(c.command), `${c.command} is registered`);
      assert.equal(c.category, 'Headroom');
    }
    assert.ok(contributed.some((c) => c.command === 'headroom.focusPanel'));
    assert.ok(contributed.some((c) => c.command === 'headroom.showLog'));
  });

  it('Show Log and Focus Panel run without error', async () => {
    await activateHeadroom();
    await vscode.commands.executeCommand('headroom.showLog');
    await vscode.commands.executeCommand('headroom.focusPanel');
  });
});
