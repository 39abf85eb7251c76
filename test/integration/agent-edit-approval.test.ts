import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { activateHeadroom, resetProviderSettings, useFakeProvider, waitFor } from './helpers';

/**
 * A whole turn in a real extension host: the real loop and Anthropic SDK against the fake provider,
 * a file edit proposed by the model, VS Code's diff editor opened for it, the user's approval, the
 * edit applied through a WorkspaceEdit, and the tool result sent back to the model.
 */
describe('agent turn with an approved edit, in a real VS Code', () => {
  let server: FakeProvider;

  before(async () => {
    server = await startFakeProvider({ window: 200_000 });
    await useFakeProvider(server.baseUrl);
  });

  after(async () => {
    await resetProviderSettings();
    await server?.close();
  });

  it('opens the diff, waits for approval, applies the edit and reports it to the model', async () => {
    const api = await activateHeadroom();
    const host = api.host;
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const file = path.join(root, 'greeting.txt');
    fs.writeFileSync(file, 'hello world\n');

    server.script.push(
      {
        text: 'I will change the greeting.',
        toolCalls: [
          {
            id: 'toolu_edit1',
            name: 'edit_file',
            arguments: { path: 'greeting.txt', old_text: 'hello world', new_text: 'hello headroom' },
          },
        ],
      },
      { text: 'Done: the greeting now says hello headroom.' },
    );
    const approval = waitFor(host.approvals.onDidRequest, (p) => p, 30_000, 'an approval request');
    const turn = host.session.turns.prompt('Change the greeting to hello headroom');
    const pending = await approval;
    assert.equal(pending.request.kind, 'edit');
    assert.equal(fs.readFileSync(file, 'utf8'), 'hello world\n', 'nothing is written before approval');

    // VS Code's diff editor shows current ↔ proposed.
    const diffOpen = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .some((t) => t.input instanceof vscode.TabInputTextDiff && t.label.includes('greeting.txt'));
    for (let i = 0; i < 150 && !diffOpen(); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(diffOpen(), 'a diff tab for greeting.txt is open');

    assert.equal(host.approvals.respond(pending.id, { approved: true }), true);
    await turn;
    assert.equal(fs.readFileSync(file, 'utf8'), 'hello headroom\n');
    for (let i = 0; i < 150 && diffOpen(); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(!diffOpen(), 'the diff tab closes once the edit is decided');

    const second = server.requests.at(-1)!;
    const messages = second.body.messages as Array<{ role: string; content: unknown }>;
    const results = JSON.stringify(messages.at(-1));
    assert.match(results, /tool_result/);
    assert.match(results, /toolu_edit1/);
    assert.ok(
      host.session.sessions.messages.some((m) => m.role === 'toolResult' && !m.isError),
      'the edit result is in the context',
    );
  });

  it('a rejected edit is reported to the model and the file is untouched', async () => {
    const api = await activateHeadroom();
    const host = api.host;
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const file = path.join(root, 'keep.txt');
    fs.writeFileSync(file, 'keep me\n');
    server.script.push(
      { toolCalls: [{ id: 'toolu_edit2', name: 'write_file', arguments: { path: 'keep.txt', content: 'overwritten' } }] },
      { text: 'Understood, I left it alone.' },
    );
    const approval = waitFor(host.approvals.onDidRequest, (p) => p, 30_000, 'an approval request');
    const turn = host.session.turns.prompt('Overwrite keep.txt');
    const pending = await approval;
    host.approvals.respond(pending.id, { approved: false, reason: 'The user rejected it.' });
    await turn;
    assert.equal(fs.readFileSync(file, 'utf8'), 'keep me\n');
    assert.match(JSON.stringify(server.requests.at(-1)!.body.messages), /reject/i);
  });
});
