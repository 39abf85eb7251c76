import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostToWebview } from '../../src/protocol/messages';
import { startFakeProvider, type FakeProvider, type FakeStep, type RecordedRequest } from '../fixtures/fake-provider';
import { activateHeadroom, resetProviderSettings } from './helpers';

const MODEL = 'mistral-7b-instruct';
const GUIDE = Array.from({ length: 80 }, (_, i) => `第${i}节：上下文窗口不会溢出，压缩会保留用户的每一条指令。`).join('\n');

/** Turn `k`: read the guide, read what was stored of it, answer; a summary request gets a summary. */
function model(k: number): FakeStep {
  let round = 0;
  return (req: RecordedRequest) => {
    if (req.tools.length === 0 || JSON.stringify(req.body.messages).includes('context compaction'))
      return { text: `Summary of turns up to ${k}.` };
    round++;
    if (round === 1) return { text: 'Reading.', toolCalls: [{ id: `lc${k}`, name: 'read_file', arguments: { path: 'guide-zh.md' } }] };
    const ref = [...JSON.stringify(req.body.messages).matchAll(/(res_[0-9a-f]{6,})/g)].at(-1)?.[1];
    if (round === 2 && ref)
      return { text: 'Paging.', toolCalls: [{ id: `lp${k}`, name: 'read_result', arguments: { ref_id: ref, offset: 0, limit: 12_000 } }] };
    return { text: `Turn ${k}: the guide is about context windows.` };
  };
}

/**
 * LM Studio as it really behaves, in a real VS Code: it loads the model on its first request (JIT) and
 * its v0 list has only its documented fields; later another client reloads the model at 2,048 and LM
 * Studio cuts the conversation without a word. The header names the window the meter uses at every
 * step, and the user is told once that the server may be cutting the conversation.
 */
describe('a local server that loads late and cuts without a word, in a real VS Code', () => {
  let server: FakeProvider;
  let root: string;
  const cfg = () => vscode.workspace.getConfiguration('headroom');

  before(async () => {
    server = await startFakeProvider({
      flavour: 'lmstudio',
      windows: { [MODEL]: 8192 },
      tokenizer: 'sentencepiece',
      local: { unloaded: true, v0DocumentedFieldsOnly: true },
    });
    await activateHeadroom();
    await cfg().update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
    await cfg().update('model', MODEL, vscode.ConfigurationTarget.Global);
    await cfg().update('baseUrl', server.openaiBaseUrl, vscode.ConfigurationTarget.Global);
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.writeFileSync(path.join(root, 'guide-zh.md'), GUIDE);
  });

  after(async () => {
    await resetProviderSettings();
    await cfg().update('provider', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('model', undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
    fs.rmSync(path.join(root, 'guide-zh.md'), { force: true });
  });

  it('budgets small until the model is loaded, then to what was loaded; a cut conversation is told once; the header follows', async function () {
    this.timeout(300_000);
    const api = await activateHeadroom();
    const { host } = api;
    const warned: string[] = [];
    const warn = api.log.warn.bind(api.log);
    api.log.warn = (message: string, ...args: unknown[]) => {
      warned.push(message);
      warn(message, ...args);
    };
    const header: string[] = [];
    const posts = host.panel.onDidPost((m: HostToWebview) => {
      if (m.type === 'session/snapshot' && m.snapshot.config.modelInfo) header.push(m.snapshot.config.modelInfo.window);
    });
    const turn = async (k: number) => {
      server.script.length = 0;
      const step = model(k);
      for (let i = 0; i < 10; i++) server.script.push(step);
      await host.session.turns.prompt(`Turn ${k}: read guide-zh.md.`);
    };
    try {
      await host.session.sessions.create();
      await turn(0);
      assert.equal(host.session.turns.measure().contextWindow, 4096, 'not loaded yet: a small window, not the 131,072 maximum');
      assert.ok(server.requests.every((r) => r.contextLength === 8192 && !r.silentlyTruncatedTokens));
      await turn(1);
      assert.equal(host.session.turns.measure().contextWindow, 8192, 'loaded: the context LM Studio loaded it with');
      assert.equal(header.at(-1), '8.2k', `the header follows the meter's window: ${header.join(' → ')}`);

      const before = server.requests.length;
      // Another client reloads the model at 2,048 after Headroom asked for the window, before its request.
      server.local!.atNextChat(() => server.local!.loadByOtherClient(MODEL, 2048));
      await turn(2);
      assert.ok(
        server.requests.slice(before).some((r) => (r.silentlyTruncatedTokens ?? 0) > 0),
        'LM Studio did cut a request (reloaded behind Headroom’s back)',
      );
      await turn(3);
      assert.equal(host.session.turns.measure().contextWindow, 2048, 'asked again, LM Studio said its new context');
      assert.equal(header.at(-1), '2k', `the header follows the meter's window: ${header.join(' → ')}`);
      const told = warned.filter((w) => /may be cutting the conversation/.test(w));
      assert.equal(told.length, 1, `told once: ${warned.join(' | ')}`);
      assert.match(told[0], /it reported [\d.]+k? tokens for a prompt of ~[\d.]+k?/);
    } finally {
      posts.dispose();
      api.log.warn = warn;
    }
  });
});
