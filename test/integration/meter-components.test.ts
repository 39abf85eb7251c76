import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentEvent, ContextUsage } from '../../src/agent/events';
import { COMPONENT_NAMES, type BudgetComponents } from '../../src/context/budget';
import { PRIOR_BAND } from '../../src/context/estimate-band';
import { analyzeAnthropic } from '../fixtures/fake-provider/anthropic-wire';
import { countSentComponents } from '../fixtures/fake-provider/count-components';
import { fakeTokenizer } from '../fixtures/fake-provider/harsh-tokens';
import { startFakeProvider, type FakeProvider, type FakeStep } from '../fixtures/fake-provider';
import { activateHeadroom, resetProviderSettings, useFakeProvider } from './helpers';

const WINDOW = 32_000;
const AGENTS_MD = Array.from({ length: 50 }, (_, i) => `- Rule ${i}: keep functions pure, name files in kebab-case, test every fix.`).join(
  '\n',
);

function prose(words: number, seed: number): string {
  const vocab = ['the', 'agent', 'reads', 'context', 'window', 'file', 'result', 'stored', 'token', 'budget', 'summary', 'turn'];
  return Array.from({ length: words }, (_, i) => vocab[(i * 7 + seed) % vocab.length]).join(' ');
}

/** Turn `k`: read one file, then answer at length; a request without tools is a summary request. */
function model(k: number): FakeStep {
  let read = false;
  return (req) => {
    if (req.tools.length === 0) return { text: `Files f0 to f${k} were read; each is prose about context windows. ${prose(80, k)}` };
    if (!read) {
      read = true;
      return {
        text: `Reading f${k % 5}.`,
        toolCalls: [{ id: `toolu_m${k}`, name: 'read_file', arguments: { path: `meter-src/f${k % 5}.ts` } }],
      };
    }
    return { text: `About f${k % 5}: ${prose(500, k)}`, chunkChars: 512 };
  };
}

/**
 * Done when: in a real VS Code, with an AGENTS.md, deferred external tools (six language-model
 * tools the test-runner extension contributes) and two compactions, every component the meter shows
 * right before a request matches that request as the fake provider counted it (its own tokenizer and
 * framing), within the band shown; after a response the meter says "confirmed".
 */
describe('the meter against the request actually sent, in a real VS Code', () => {
  let server: FakeProvider;
  let root: string;
  const cfg = () => vscode.workspace.getConfiguration('headroom');

  before(async () => {
    server = await startFakeProvider({ window: WINDOW, tokenizer: 'harsh' });
    await useFakeProvider(server.baseUrl);
    await cfg().update('models', { 'claude-sonnet-4-5': { contextWindow: WINDOW, maxOutput: 4_000 } }, vscode.ConfigurationTarget.Global);
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.writeFileSync(path.join(root, 'AGENTS.md'), AGENTS_MD);
    fs.mkdirSync(path.join(root, 'meter-src'), { recursive: true });
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, 'meter-src', `f${i}.ts`), `// f${i}\n${prose(700, i)}\n`);
  });

  after(async () => {
    await resetProviderSettings();
    await server?.close();
    fs.rmSync(path.join(root, 'AGENTS.md'), { force: true });
    fs.rmSync(path.join(root, 'meter-src'), { recursive: true, force: true });
  });

  it('rules, deferred tools, summary, messages and results each match the request sent, within the band; "confirmed" after a response', async function () {
    this.timeout(300_000);
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
    const events: AgentEvent[] = [];
    let latest: ContextUsage | undefined;
    const shownBeforeRequest: ContextUsage[] = [];
    const sub = host.session.onDidEvent((e) => {
      events.push(e);
      if (e.type === 'context_usage') latest = e.usage;
      if (e.type === 'message_start' && e.role === 'assistant' && latest) shownBeforeRequest.push(latest);
    });
    const turn = async (k: number) => {
      server.script.length = 0;
      const step = model(k);
      for (let i = 0; i < 6; i++) server.script.push(step);
      await host.session.turns.prompt(`Turn ${k}: read meter-src/f${k % 5}.ts and explain it. ${prose(60, k)}`);
    };
    const compactions: unknown[] = [];
    try {
      for (let k = 0; k < 3; k++) await turn(k);
      server.script.length = 0;
      server.script.push(model(90));
      compactions.push(await host.session.compactions.compact('the files read so far'));
      for (let k = 3; k < 5; k++) await turn(k);
      server.script.length = 0;
      server.script.push(model(91));
      compactions.push(await host.session.compactions.compact());
      const before = server.requests.length;
      const from = shownBeforeRequest.length;
      await turn(5);
      const sent = server.requests.slice(before).filter((r) => ((r.body.tools as unknown[] | undefined)?.length ?? 0) > 0);
      const shown = shownBeforeRequest.slice(from);
      assert.equal(shown.length, sent.length, 'one figure shown before each request of the last turn');
      assert.ok(compactions.every(Boolean), 'both compactions ran');

      // The last request of the turn (it carries a tool result) against what the meter showed just before it.
      const request = sent[sent.length - 1];
      const usage = shown[shown.length - 1].budget!;
      const truth = countSentComponents(request.body, 'harsh');
      assert.equal(
        request.inputTokens,
        COMPONENT_NAMES.reduce((s, n) => s + truth[n], 0),
        'the independent split covers the whole request',
      );
      const byName = Object.fromEntries(usage.components.map((c) => [c.name, c.tokens])) as unknown as BudgetComponents;
      for (const name of ['system', 'rules', 'tools', 'deferredTools', 'summary', 'messages', 'toolResults'] as const) {
        assert.ok(truth[name] > 0, `the request carries ${name} (${JSON.stringify(truth)})`);
        assert.ok(byName[name] > 0, `the meter shows ${name} (${JSON.stringify(byName)})`);
      }
      const blocks = analyzeAnthropic(request.body, fakeTokenizer('harsh')).blocks.length;
      const misses = COMPONENT_NAMES.flatMap((name) => {
        const slack = Math.max(usage.errorBand, PRIOR_BAND.code) * truth[name] + 4 * blocks;
        return Math.abs(byName[name] - truth[name]) <= slack
          ? []
          : [`${name}: shown ${byName[name]}, sent ${truth[name]} (±${slack.toFixed(0)})`];
      });
      assert.deepEqual(misses, [], 'every component within the band');
      assert.ok(usage.confirmed, 'the figure before the request rests on the confirmed base of the previous one');
      const total = request.inputTokens;
      assert.ok(
        Math.abs(usage.used - total) <= Math.max(usage.bandTokens ?? 0, usage.errorBand * total) + 4 * blocks,
        `total: shown ${usage.used} (${usage.confirmedTokens} confirmed + ${usage.estimatedTokens} est. ±${usage.bandTokens}), sent ${total}`,
      );
      // After the response: "confirmed".
      const after = host.session.turns.measure();
      assert.ok(after.budget?.confirmed, `the meter says confirmed after a response (${after.budget?.accuracy})`);
      assert.ok(events.filter((e) => e.type === 'error').length === 0, 'no error');
    } finally {
      sub.dispose();
    }
  });
});
