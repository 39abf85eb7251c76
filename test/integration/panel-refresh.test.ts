import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LedgerView, MeterView, SessionView } from '../../src/protocol/view-models';
import type { HostToWebview } from '../../src/protocol/messages';
import { toLedgerView } from '../../src/panel/ledger-view';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { activateHeadroom, resetProviderSettings, useFakeProvider, waitFor } from './helpers';

/**
 * What the panel was last told, from the messages the host posts to the webview (the webview shows
 * exactly these): the session line, the meter and "Work so far".
 */
class PanelMirror {
  session: SessionView | undefined;
  meter: MeterView | null | undefined;
  ledger: LedgerView | null | undefined;
  private readonly sub: vscode.Disposable;

  constructor(onDidPost: vscode.Event<HostToWebview>) {
    this.sub = onDidPost((m) => {
      if (m.type === 'session/snapshot') {
        this.session = m.snapshot.session;
        if (m.snapshot.meter !== undefined) this.meter = m.snapshot.meter;
        if (m.snapshot.ledger !== undefined) this.ledger = m.snapshot.ledger;
      } else if (m.type === 'session/info') this.session = m.session;
      else if (m.type === 'context/usage') this.meter = m.meter;
      else if (m.type === 'ledger/update') this.ledger = m.ledger;
    });
  }

  dispose(): void {
    this.sub.dispose();
  }
}

/**
 * Every view refreshes after each action that changes the context: after Compact, Undo and a checkpoint
 * Restore, sent as the webview sends them, the session line, the meter (figure, status, "freed") and
 * "Work so far" the panel was last told equal the host's own state. (Clear asks in a modal first; the
 * e2e suite drives it in a real VS Code.)
 */
describe('the panel after compact, undo and restore, against the host', () => {
  let server: FakeProvider;
  let mirror: PanelMirror;
  let root: string;

  before(async () => {
    server = await startFakeProvider({ window: 200_000 });
    await useFakeProvider(server.baseUrl);
    const api = await activateHeadroom();
    mirror = new PanelMirror(api.panel.onDidPost);
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    await api.host.session.sessions.create();
    await api.panel.postSnapshot();
  });

  after(async () => {
    mirror?.dispose();
    fs.rmSync(path.join(root, 'refresh-made.txt'), { force: true });
    await resetProviderSettings();
    await server?.close();
  });

  /** What the host holds now, in the panel's terms. */
  async function hostState() {
    const { host } = await activateHeadroom();
    const s = host.session.sessions.state();
    const usage = host.session.turns.measure();
    const ledger = toLedgerView(host.session.records.ledger());
    return {
      counts: `${s.messageCount} in context, ${s.transcriptCount} in transcript`,
      used: usage.used,
      status: usage.status,
      files: ledger.files.map((f) => `${f.action} ${f.path}`).join(', '),
    };
  }

  function shown() {
    return {
      counts: `${mirror.session?.messageCount} in context, ${mirror.session?.transcriptCount ?? mirror.session?.messageCount} in transcript`,
      used: mirror.meter?.used,
      status: mirror.meter?.status,
      files: (mirror.ledger?.files ?? []).map((f) => `${f.action} ${f.path}`).join(', '),
    };
  }

  /** The panel catches up with the host (posts are asynchronous); fails with both states when it does not. */
  async function panelEqualsHost(after: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const want = await hostState();
      const got = shown();
      if (JSON.stringify(got) === JSON.stringify(want)) return;
      if (Date.now() > deadline) {
        const { host } = await activateHeadroom();
        const u = host.session.turns.measure();
        const dbg = JSON.stringify({
          host: { used: u.used, c: u.budget?.confirmedTokens, e: u.budget?.estimatedTokens, acc: u.budget?.accuracy },
          panel: { used: mirror.meter?.used, acc: mirror.meter?.accuracy },
        });
        assert.deepEqual(got, want, `after ${after}, the panel shows the host's state ${dbg}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function turn(text: string, steps: Parameters<FakeProvider['script']['push']>): Promise<void> {
    const { host } = await activateHeadroom();
    server.script.push(...steps);
    await host.session.turns.prompt(text);
  }

  it('compact, undo and restore each leave the panel equal to the host', async function () {
    this.timeout(240_000);
    const api = await activateHeadroom();
    for (let i = 0; i < 4; i++)
      await turn(`Question ${i}: ${'context '.repeat(300)}`, [{ text: `Answer ${i}: ${'details '.repeat(300)}` }]);
    await panelEqualsHost('four turns');

    server.script.push({ text: 'Summary: four questions about the context were answered.' });
    await api.panel.receive({ type: 'context/compact' });
    await panelEqualsHost('Compact');
    assert.ok(mirror.meter?.freed, 'the meter says what the compaction freed');

    await api.panel.receive({ type: 'compaction/undo' });
    await panelEqualsHost('Undo');
    assert.equal(mirror.meter?.freed ?? null, null, 'after Undo the meter no longer says what the undone compaction freed');

    server.script.push(
      { toolCalls: [{ id: 'w_refresh', name: 'write_file', arguments: { path: 'refresh-made.txt', content: 'made\n' } }] },
      { text: 'Made it.' },
    );
    const approval = waitFor(api.host.approvals.onDidRequest, (p) => p, 30_000, 'an approval request');
    const writing = api.host.session.turns.prompt('Make a file.');
    api.host.approvals.respond((await approval).id, { approved: true });
    await writing;
    await panelEqualsHost('a turn that wrote a file');
    assert.match(shown().files, /created refresh-made\.txt/);
    const made = api.host.session.checkpoints.turnChanges()?.turn;
    assert.ok(made, 'the turn has a checkpoint');
    await api.panel.receive({ type: 'checkpoint/restore', turn: made });
    await panelEqualsHost('Restore');
    assert.equal(fs.existsSync(path.join(root, 'refresh-made.txt')), false, 'the restore removed the file');
    assert.doesNotMatch(shown().files, /refresh-made\.txt/, '"Work so far" does not list the file the restore removed');
  });
});
