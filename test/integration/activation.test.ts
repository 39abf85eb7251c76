import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { activateHeadroom, EXTENSION_ID } from './helpers';

describe('activation in a real extension host', () => {
  it('is installed and not activated eagerly by "*"', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, 'Headroom is installed');
    const events = (ext.packageJSON as { activationEvents?: string[] }).activationEvents ?? [];
    assert.ok(!events.includes('*'), 'no "*" activation');
  });

  it('activates and returns its API with a log channel', async () => {
    const api = await activateHeadroom();
    assert.ok(api.panel, 'panel provider exists');
    assert.equal(api.log.name, 'Headroom');
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
  });

  it('gets a workspace storageUri it can create and write', async () => {
    const api = await activateHeadroom();
    assert.ok(vscode.workspace.workspaceFolders?.length, 'a folder is open');
    assert.ok(api.storagePath, 'storageUri is defined when a folder is open');
    fs.mkdirSync(api.storagePath, { recursive: true });
    const probe = `${api.storagePath}/probe-${Date.now()}.txt`;
    fs.writeFileSync(probe, 'ok');
    assert.equal(fs.readFileSync(probe, 'utf8'), 'ok');
    fs.unlinkSync(probe);
  });
});
