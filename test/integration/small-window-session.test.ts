import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentEvent, TurnEndReason } from '../../src/agent/events';
import { startFakeProvider, type FakeProvider, type RecordedRequest } from '../fixtures/fake-provider';
import { bigCode, cjkDoc, runLargeOutputTurns, TURNS } from '../fixtures/scenarios/large-outputs';
import { activateHeadroom, resetProviderSettings, useFakeProvider } from './helpers';

const WINDOW = 8_000;
const MAX_OUTPUT = 1_500;

/**
 * "small windows stay usable": an 8k window (a common local-model size), a provider that
 * counts with a tokenizer Headroom does not estimate with, and five turns of large tool outputs, in a
 * real VS Code through the real session host, store and Anthropic SDK.
 */
describe('an 8k-window session with large outputs, in a real VS Code', () => {
  let server: FakeProvider;
  let root: string;
  const cfg = () => vscode.workspace.getConfiguration('headroom');

  before(async () => {
    server = await startFakeProvider({ window: WINDOW, tokenizer: 'harsh' });
    await useFakeProvider(server.baseUrl);
    await cfg().update(
      'models',
      { 'claude-sonnet-4-5': { contextWindow: WINDOW, maxOutput: MAX_OUTPUT } },
      vscode.ConfigurationTarget.Global,
    );
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.writeFileSync(path.join(root, 'big-module.ts'), bigCode());
    fs.writeFileSync(path.join(root, 'guide-zh.md'), cjkDoc());
  });

  after(async () => {
    await resetProviderSettings();
    await server?.close();
    for (const f of ['big-module.ts', 'guide-zh.md']) fs.rmSync(path.join(root, f), { force: true });
  });

  it('goes through 5 turns: each ends with the answer, no request over the window, compaction ran, the meter moved', async function () {
    this.timeout(300_000);
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
    const events: AgentEvent[] = [];
    const sub = host.session.onDidEvent((e) => events.push(e));
    let approvals = 0;
    const approve = host.approvals.onDidRequest((p) => {
      approvals++;
      host.approvals.respond(p.id, { approved: true });
    });
    const sent = server.requests.length;
    let ends: TurnEndReason[];
    try {
      ends = await runLargeOutputTurns(server.script, (text) => host.session.turns.prompt(text), events);
    } finally {
      sub.dispose();
      approve.dispose();
    }

    const requests = server.requests.slice(sent);
    const shown = (r: RecordedRequest) => `${r.status}:${r.inputTokens}+${String(r.body.max_tokens)}`;
    assert.deepEqual(ends, Array(TURNS).fill('done'), 'every turn ends with the model answer, none with a forced final answer');
    const errors = events.filter((e) => e.type === 'error');
    assert.deepEqual(errors, [], 'no error block');
    assert.ok(
      requests.every((r) => r.status === 200 && r.inputTokens + Number(r.body.max_tokens ?? 0) <= WINDOW),
      `no request over the ${WINDOW}-token window as the provider counted it: ${requests.map(shown).join(', ')}`,
    );
    assert.ok(
      events.some((e) => e.type === 'compaction'),
      'at least one compaction ran',
    );
    assert.equal(approvals, 2, 'one approval per command');
    const used = events.flatMap((e) => (e.type === 'context_usage' ? [e.usage.used] : []));
    assert.ok(used.length >= TURNS, `the meter was updated (${used.length} updates)`);
    assert.ok(Math.max(...used) - Math.min(...used) > 1000, `the meter moved (${Math.min(...used)}–${Math.max(...used)} tokens)`);
    assert.ok(
      used.some((u, i) => i > 0 && u < used[i - 1]),
      'the meter went down as well as up (compaction freed space)',
    );
  });
});
