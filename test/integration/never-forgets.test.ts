import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentEvent, CompactionChange } from '../../src/agent/events';
import { CACHED_SUMMARY_MARK } from '../../src/context/compaction';
import { startFakeProvider, type FakeProvider, type RecordedRequest } from '../fixtures/fake-provider';
import { receiptMismatches } from '../fixtures/compaction/receipt-check';
import { activateHeadroom, resetProviderSettings, useFakeProvider } from './helpers';

const PIN = 'PIN-NF: the public API stays at v2';
const SWITCHED = 'claude-haiku-4-5';
const WINDOW_MINUTES = 0.5;

const isSummary = (r: RecordedRequest) => {
  const body = JSON.stringify(r.body.messages ?? []);
  return (
    body.includes('<transcript>') ||
    body.includes(CACHED_SUMMARY_MARK.slice(1, 40)) ||
    body.includes('consecutive parts of one coding session')
  );
};
const sent = (r: RecordedRequest) => JSON.stringify(r.body.messages ?? []);

/**
 * Never silently forgets, in a real VS Code: a session with a rolling window, a model switch and three
 * compactions whose summarizer names nothing. Every request after the first compaction carries the
 * user's instructions, the pin and the work ledger (also once the rolling window has passed over all
 * kept turns, and after a reopen); the files changed last are re-read into the context; each
 * compaction's receipt equals what the next request carries; the summaries after the switch go to
 * the new model.
 */
describe('never silently forgets: rolling window, model switch, three compactions', function () {
  this.timeout(300_000);
  let server: FakeProvider;
  let root: string;
  const cfg = () => vscode.workspace.getConfiguration('headroom');
  const changes: CompactionChange[] = [];
  const receipts: unknown[] = [];

  before(async () => {
    server = await startFakeProvider({ window: 200_000 });
    await useFakeProvider(server.baseUrl);
    await cfg().update('autoApprove.edits', true, vscode.ConfigurationTarget.Global);
    await cfg().update('autoApprove.commands', ['echo'], vscode.ConfigurationTarget.Global);
    await cfg().update('rollingWindowMinutes', WINDOW_MINUTES, vscode.ConfigurationTarget.Global);
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
    host.session.onDidEvent((e: AgentEvent) => void (e.type === 'compaction_end' && e.change && changes.push(e.change)));
  });

  after(async () => {
    for (const key of ['autoApprove.edits', 'autoApprove.commands', 'rollingWindowMinutes'])
      await cfg().update(key, undefined, vscode.ConfigurationTarget.Global);
    await resetProviderSettings();
    await server?.close();
    fs.rmSync(path.join(root, 'nf-src'), { recursive: true, force: true });
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
    fs.writeFileSync(path.join(os.tmpdir(), 'headroom-never-forgets-receipts.json'), JSON.stringify(receipts, null, 2));
  });

  /** What must be in every request after compaction `k` (0-based): the instructions and ledger entries of rounds 0..k, the pin. */
  function expected(k: number): string[] {
    const out = [PIN];
    for (let r = 0; r <= k; r++) out.push(`NF-INSTR-${r}: never edit the generated files`, `nf-src/round-${r}.ts`, `echo NF-CHECK-${r}`);
    return out;
  }
  const firstAfter: number[] = [];

  it('carries instructions, pin and ledger in every request after each of three compactions, across a model switch', async () => {
    const { host } = await activateHeadroom();
    await host.session.pins.pin(PIN);
    for (let r = 0; r < 3; r++) {
      server.script.push(
        {
          toolCalls: [
            {
              id: `toolu_w${r}`,
              name: 'write_file',
              arguments: { path: `nf-src/round-${r}.ts`, content: `// NF-FILE-${r}\nexport const round = ${r};\n` },
            },
          ],
        },
        { toolCalls: [{ id: `toolu_c${r}`, name: 'run_command', arguments: { command: `echo NF-CHECK-${r}` } }] },
        { text: `Round ${r} done. ${'the round wrote its file and checked it '.repeat(60)}` },
      );
      await host.session.turns.prompt(`NF-INSTR-${r}: never edit the generated files. Now do round ${r}. ${'context '.repeat(200)}`);
      for (let k = 0; k < 2; k++) {
        server.script.push({ text: `Talk ${r}.${k}: ${'more words about the round '.repeat(120)}` });
        await host.session.turns.prompt(`Round ${r} question ${k}: ${'context '.repeat(200)}`);
      }
      if (r === 1) {
        await host.session.turns.setModel({ provider: 'anthropic', model: SWITCHED, thinking: 'off' });
        assert.equal(host.session.models.choice().model, SWITCHED);
      }
      const summariesBefore = server.requests.filter(isSummary).length;
      server.script.push({ text: '## Goal\nKeep going.' }); // a summarizer that names nothing
      assert.ok(await host.session.compactions.compact(), `compaction ${r + 1} ran`);
      const summaries = server.requests.filter(isSummary).slice(summariesBefore);
      assert.ok(summaries.length >= 1);
      if (r >= 1)
        assert.ok(
          summaries.every((s) => s.model === SWITCHED),
          'the summary follows the switched model',
        );
      firstAfter.push(server.requests.length);
      const stored = (await host.session.compactions.history()).compactions.at(-1);
      assert.deepEqual(stored?.view?.receipt, changes.at(-1)?.receipt, 'the receipt is stored with the compaction');
      receipts.push({ compaction: r + 1, receipt: changes.at(-1)?.receipt });

      server.script.push({ text: `Checked after compaction ${r + 1}.` });
      await host.session.turns.prompt(`After compaction ${r + 1}: what is done?`);
      const next = server.requests.slice(firstAfter[r]).find((q) => !isSummary(q))!;
      assert.deepEqual(
        receiptMismatches(changes.at(-1)!, changes.at(-1)!.receipt!, next).mismatches,
        [],
        `receipt ${r + 1} = the next request`,
      );
      const body = sent(next);
      assert.ok(body.includes(`NF-FILE-${r}`), `the file written last is re-read into the context after compaction ${r + 1}`);
    }
    // Every request after a compaction carries what was decided before it.
    for (let k = 0; k < 3; k++) {
      const until = firstAfter[k + 1] ?? server.requests.length;
      const requests = server.requests.slice(firstAfter[k], until).filter((q) => !isSummary(q));
      assert.ok(requests.length >= 1);
      for (const q of requests) for (const s of expected(k)) assert.ok(sent(q).includes(s), `after compaction ${k + 1}: ${s} in a request`);
    }
  });

  it('still carries them once the rolling window passed over every kept turn, live and after a reopen', async () => {
    const { host } = await activateHeadroom();
    await new Promise((r) => setTimeout(r, WINDOW_MINUTES * 60_000 + 1_000));
    server.script.push({ text: 'Still here.' });
    await host.session.turns.prompt('After the window: what is done?');
    let body = sent(server.requests.at(-1)!);
    assert.ok(!body.includes('Round 2 question 1'), 'the window did cut the kept turns');
    for (const s of expected(2)) assert.ok(body.includes(s), `live: ${s}`);

    await host.session.storage.flush();
    const id = host.session.sessions.state().sessionId;
    await host.session.sessions.create();
    await host.session.sessions.open(id);
    server.script.push({ text: 'Reopened.' });
    await host.session.turns.prompt('After the reopen: what is done?');
    body = sent(server.requests.at(-1)!);
    for (const s of expected(2)) assert.ok(body.includes(s), `reopened: ${s}`);
  });
});
