import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StoredCompactionView } from '../../src/context/compaction';
import { PROTOCOL_VERSION, type HostToWebview } from '../../src/protocol/messages';
import type { ChatItem, ChatItemOf, SnapshotView } from '../../src/protocol/view-models';
import { startFakeProvider, type FakeProvider, type FakeStep, type RecordedRequest } from '../fixtures/fake-provider';
import { activateHeadroom, resetProviderSettings, useFakeProvider, waitFor } from './helpers';

const EARLY = 'FIDELITY-EARLY-7Q2';
const ROUNDS = 3;

/** One round's work: plan, a file read, a missing file, a failing command; then a long answer. */
function workTurn(r: number): FakeStep[] {
  return [
    {
      text: `Round ${r}: planning.`,
      toolCalls: [
        {
          id: `toolu_plan${r}`,
          name: 'update_plan',
          arguments: {
            items: [
              ...Array.from({ length: r }, (_, j) => ({ text: `finish round ${j}`, status: 'done' })),
              { text: `finish round ${r}`, status: 'in_progress' },
              { text: 'ship it', status: 'open' },
            ],
          },
        },
        { id: `toolu_read${r}`, name: 'read_file', arguments: { path: `fid-src/mod${r}.ts` } },
        { id: `toolu_miss${r}`, name: 'read_file', arguments: { path: `fid-src/absent${r}.ts` } },
        { id: `toolu_cmd${r}`, name: 'run_command', arguments: { command: `ls fid-no-dir-${r}` } },
      ],
    },
    {
      text: `Answer ${r}: ${r === 0 ? `the code word is ${EARLY}. ` : ''}${'the module reads its settings and logs them '.repeat(120)}`,
      chunkChars: 4_000,
    },
  ];
}

/** The request as one string (Anthropic protocol: system and messages). */
const sent = (req: RecordedRequest) => JSON.stringify(req.body.messages ?? []);

const cards = (items: readonly ChatItem[]) => items.filter((i): i is ChatItemOf<'compaction'> => i.kind === 'compaction');

/**
 * Done when: a session in a real VS Code runs through 3 compactions, and after each one the
 * work ledger (files, commands, errors, plan) is in the request the fake provider received and in what
 * the panel shows; search_history (the model's) and Search History (the palette's service) find what
 * was said before the first compaction; each compaction's "what left the context" lists the right
 * categories with ref ids that open with read_result, also after the session is closed and reopened.
 */
describe('context fidelity through three compactions, in a real VS Code', function () {
  this.timeout(300_000);
  let server: FakeProvider;
  let root: string;
  const cfg = () => vscode.workspace.getConfiguration('headroom');

  /** What the panel shows now: the snapshot it sends a webview that says ready. */
  async function panelView(): Promise<SnapshotView> {
    const { panel } = await activateHeadroom();
    const snapshot = waitFor(
      panel.onDidPost,
      (m: HostToWebview) => (m.type === 'session/snapshot' ? m.snapshot : undefined),
      30_000,
      'session/snapshot',
    );
    await panel.receive({ type: 'webview/ready', protocolVersion: PROTOCOL_VERSION });
    return snapshot;
  }

  before(async () => {
    server = await startFakeProvider({ window: 200_000 });
    await useFakeProvider(server.baseUrl);
    await cfg().update('autoApprove.commands', ['ls'], vscode.ConfigurationTarget.Global);
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.mkdirSync(path.join(root, 'fid-src'), { recursive: true });
    for (let r = 0; r < ROUNDS; r++)
      fs.writeFileSync(
        path.join(root, 'fid-src', `mod${r}.ts`),
        `// FIDELITY-MOD-${r}\n${'export const setting = "value";\n'.repeat(120)}`,
      );
    await vscode.commands.executeCommand('headroom.focusPanel');
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
  });

  after(async () => {
    await cfg().update('autoApprove.commands', undefined, vscode.ConfigurationTarget.Global);
    await resetProviderSettings();
    await server?.close();
    fs.rmSync(path.join(root, 'fid-src'), { recursive: true, force: true });
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
  });

  const views: StoredCompactionView[] = [];

  it('keeps the ledger in the next request and in the panel after each of 3 compactions', async () => {
    const { host } = await activateHeadroom();
    for (let r = 0; r < ROUNDS; r++) {
      server.script.push(...workTurn(r));
      await host.session.turns.prompt(`Round ${r}: go on. ${'context '.repeat(200)}`);
      for (let k = 0; k < 2; k++) {
        server.script.push({ text: `Talk ${r}.${k}: ${'more words about the settings module '.repeat(150)}`, chunkChars: 4_000 });
        await host.session.turns.prompt(`Round ${r} question ${k}: ${'context '.repeat(200)}`);
      }
      server.script.push({ text: `Summary ${r}: rounds up to ${r} read their module, one file was missing, ls failed.` });
      const report = await host.session.compactions.compact();
      assert.ok(report, `compaction ${r + 1} ran`);
      await host.session.storage.flush();
      const history = await host.session.compactions.history();
      assert.equal(history.compactions.length, r + 1);
      const view = history.compactions[r].view;
      assert.ok(view, `compaction ${r + 1} stored its view`);
      views.push(view);

      // The next request: the ledger is in it, with every round's entries so far.
      const before = server.requests.length;
      server.script.push({ text: `Checked ${r}.` });
      await host.session.turns.prompt(`Round ${r}: what is done?`);
      const request = sent(server.requests[before]);
      for (let j = 0; j <= r; j++) {
        assert.ok(request.includes(`fid-src/mod${j}.ts`), `compaction ${r + 1}: file of round ${j} in the request`);
        assert.match(request, new RegExp(`ls fid-no-dir-${j}\`? → exit [1-9]`), `compaction ${r + 1}: failed command of round ${j}`);
        assert.ok(request.includes(`absent${j}.ts`), `compaction ${r + 1}: error of round ${j} in the request`);
      }
      assert.ok(request.includes(`[~] finish round ${r}`), `compaction ${r + 1}: the plan in the request`);

      // The panel: "Work so far" shows the same entries.
      const { ledger } = await panelView();
      assert.ok(ledger, 'the panel has a ledger');
      for (let j = 0; j <= r; j++) {
        assert.ok(
          ledger.files.some((f) => f.path === `fid-src/mod${j}.ts`),
          `panel file ${j}`,
        );
        assert.ok(ledger.commands.some((c) => c.command === `ls fid-no-dir-${j}` && c.exitCode !== 0));
        assert.ok(
          ledger.errors.some((e) => e.firstLine.includes(`absent${j}.ts`)),
          `panel error ${j}: ${JSON.stringify(ledger.errors)}`,
        );
      }
      assert.ok(ledger.plan.some((p) => p.text === `finish round ${r}` && p.status === 'in_progress'));
    }
  });

  it('finds what was said before the first compaction: search_history and the palette search', async () => {
    const { host } = await activateHeadroom();
    assert.ok(!JSON.stringify(host.session.sessions.messages).includes(EARLY), 'the code word left the context');
    const found = await host.session.search.searchHistory(EARLY);
    assert.ok(
      found.hits.some((h) => h.role === 'assistant' && h.excerpt.includes(EARLY)),
      `Search History finds it: ${JSON.stringify(found.hits)}`,
    );
    const before = server.requests.length;
    server.script.push(
      { toolCalls: [{ id: 'toolu_search', name: 'search_history', arguments: { query: EARLY } }] },
      { text: 'Found the code word.' },
    );
    await host.session.turns.prompt('What was the code word?');
    const result = sent(server.requests[before + 1]);
    assert.match(result, new RegExp(`search_history \\\\"${EARLY}\\\\": [1-9]`), 'the tool found it');
    assert.ok(result.includes(`the code word is ${EARLY}`), 'with an excerpt');
  });

  it('each compaction\'s "what left" lists the right categories, and its ref ids open with read_result', async () => {
    const { host } = await activateHeadroom();
    assert.equal(views.length, ROUNDS);
    for (const [i, v] of views.entries()) {
      const d = v.details;
      assert.equal(v.trigger, 'manual');
      assert.ok(d.keptCount > 0, `compaction ${i + 1} kept turns`);
      assert.ok(d.summarizedCount > 0, `compaction ${i + 1} summarized`);
      assert.equal(d.summary?.startsWith(`Summary ${i}:`), true, `compaction ${i + 1} has its summary`);
      assert.ok(
        d.summarized.some((l) => l.role === 'user' && l.text.startsWith(`Round ${i}`)),
        `compaction ${i + 1} summarized round ${i}: ${JSON.stringify(d.summarized)}`,
      );
      assert.ok(!d.kept.some((l) => l.role === 'user' && l.text.startsWith(`Round ${i}:`)), `the round's first turn is not kept`);
      for (const s of d.stored) {
        const text = await host.session.search.readResult(s.refId);
        assert.ok(text.length > 0, `${s.refId} opens`);
      }
    }
    // The module read in round 0 left the context as a stored result; its ref id opens it.
    let module: string | undefined;
    const opened: string[] = [];
    for (const s of views.flatMap((v) => v.details.stored)) {
      const text = await host.session.search.readResult(s.refId);
      opened.push(`${s.refId}: ${text.slice(0, 80)}`);
      if (/FIDELITY-MOD-0/.test(text)) module = s.refId;
    }
    assert.ok(module, `round 0's module is among the stored results:\n${opened.join('\n')}`);
    // The model opens it too.
    const before = server.requests.length;
    server.script.push(
      { toolCalls: [{ id: 'toolu_rr', name: 'read_result', arguments: { ref_id: module, grep: 'FIDELITY-MOD' } }] },
      { text: 'Read it.' },
    );
    await host.session.turns.prompt('Open the stored module.');
    assert.match(sent(server.requests[before + 1]), /FIDELITY-MOD-0/);
  });

  it('after closing and reopening the session the panel shows the 3 cards with the same views', async () => {
    const { host, panel } = await activateHeadroom();
    const id = host.session.sessions.state().sessionId;
    await host.session.storage.flush();
    // As the user starts one: through the panel (the host action reloads the chat), not the service alone.
    await panel.receive({ type: 'session/new' });
    assert.equal(cards((await panelView()).items ?? []).length, 0, 'a new session has no cards');
    await panel.receive({ type: 'session/open', id });
    const shown = cards((await panelView()).items ?? []);
    assert.equal(shown.length, ROUNDS, 'one card per compaction');
    shown.forEach((c, i) => {
      assert.deepEqual(c.details, views[i].details, `card ${i + 1} shows the stored view`);
      assert.equal(c.kept, views[i].kept);
    });
    assert.equal(shown.at(-1)!.canUndo, true, 'Undo stays one click on the newest');
    assert.ok(
      shown.slice(0, -1).every((c) => !c.canUndo),
      'and only there',
    );
  });
});
