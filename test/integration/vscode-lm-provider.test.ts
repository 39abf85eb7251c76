import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import type { AssistantMessage } from '../../src/providers/types';
import { FakeLanguageModels, fakeModelsOffered, installFakeLanguageModels, uninstallFakeLanguageModels } from './fake-lm';
import { activateHeadroom } from './helpers';

/**
 * The model's window. Its count is harsh (a token per 3 characters): by it the system prompt and the
 * tools offered already take ~11.2k, so a 12k window blocked the first turn before any request (the
 * product refusing a window its fixed part does not fit, correctly). 20k leaves a few turns before
 * the window fills, which is what these tests are about.
 */
const WINDOW = 20_000;

/** The text of the last assistant message in the session's view. */
function lastAnswer(messages: readonly unknown[]): string {
  const a = [...(messages as AssistantMessage[])].reverse().find((m) => m.role === 'assistant');
  return (a?.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/**
 * Headroom's `vscode-lm` provider in a real VS Code: a chat model registered through the Language
 * Model Chat Provider API (test/runner-extension + fake-lm.ts) answers full turns — text, a tool call
 * and its result, compaction when its small window fills, and recovery from its overflow error.
 */
describe('VS Code Language Model API provider: full turns through a registered chat model', () => {
  const fake = new FakeLanguageModels([{ id: 'fake-small', window: WINDOW }]);
  const events: AgentEvent[] = [];
  let sub: { dispose(): void } | undefined;

  before(async function () {
    // Under @vscode/test-electron no runner extension registers the provider: nothing to run against.
    if (!installFakeLanguageModels(fake)) this.skip();
    await fakeModelsOffered(fake);
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
    await host.session.turns.setModel({ provider: 'vscode-lm', model: 'fake-small', thinking: 'off' });
    sub = host.session.onDidEvent((e) => events.push(e));
  });

  after(async () => {
    sub?.dispose();
    uninstallFakeLanguageModels();
    const { host } = await activateHeadroom();
    await host.session.sessions.create();
  });

  it('answers a text turn, and the budget is the input limit VS Code reports for the model', async () => {
    const { host } = await activateHeadroom();
    fake.script.push({ text: 'Hello from the fake model.' });
    await host.session.turns.prompt('Say hello.');
    assert.equal(lastAnswer(host.session.sessions.messages), 'Hello from the fake model.');
    assert.match(fake.requests.at(-1)!.text, /Say hello\./);
    const limits = host.session.models.limits();
    assert.deepEqual([limits.provider, limits.contextWindow, limits.source], ['vscode-lm', WINDOW, 'server']);
    assert.equal(host.session.turns.measure().contextWindow, WINDOW);
  });

  it('runs a tool call and sends its result back to the model', async () => {
    const { host } = await activateHeadroom();
    fake.script.push({ toolCall: { name: 'read_file', input: { path: 'README.md' } } }, { text: 'The README holds a title.' });
    const before = fake.requests.length;
    await host.session.turns.prompt('What is in README.md?');
    const sent = fake.requests.slice(before);
    assert.equal(sent.length, 2, 'one request for the call, one with its result');
    assert.ok(sent[0].toolNames.includes('read_file'), `tools offered: ${sent[0].toolNames.join(', ')}`);
    assert.ok(
      sent[1].toolResults.some((r) => r.includes('# integration workspace')),
      'the file content went back as a tool result',
    );
    assert.equal(lastAnswer(host.session.sessions.messages), 'The README holds a title.');
  });

  it('compacts as its small window fills: every turn ends well and no request is refused twice in a row', async () => {
    const { host } = await activateHeadroom();
    const from = events.length;
    const before = fake.requests.length;
    // Turns until the window fills and a compaction runs (how many depends on what earlier suites left
    // in the session's fixed part), and two more after it.
    let turns = 0;
    let after = -1;
    for (; turns < 16 && after < 2; turns++) {
      fake.script.push({ text: `Answer ${turns}: ${'words '.repeat(1_200)}` });
      await host.session.turns.prompt(`Question ${turns}: ${'context '.repeat(150)}`);
      if (after >= 0 || events.slice(from).some((e) => e.type === 'compaction')) after++;
    }
    const mine = events.slice(from);
    const ends = mine.filter((e): e is Extract<AgentEvent, { type: 'turn_end' }> => e.type === 'turn_end');
    assert.deepEqual(
      ends.map((e) => e.reason),
      Array(turns).fill('done'),
      `errors: ${mine.flatMap((e) => (e.type === 'error' ? [e.message] : [])).join(' | ')}`,
    );
    assert.ok(
      mine.some((e) => e.type === 'compaction'),
      'a compaction ran',
    );
    const outcomes = fake.requests.slice(before).map((r) => r.outcome);
    assert.ok(!outcomes.join(',').includes('overflow,overflow'), `outcomes: ${outcomes.join(',')}`);
    assert.ok(
      fake.requests.slice(before).some((r) => r.toolNames.length === 0),
      'the summary went through the same model',
    );
  });

  it("recovers from the model's overflow error: compacts, retries once, answers", async () => {
    const { host } = await activateHeadroom();
    // A session well under its threshold, with turns a compaction can summarize: the refusal, not the
    // threshold, is what compacts.
    await host.session.sessions.create();
    await host.session.turns.setModel({ provider: 'vscode-lm', model: 'fake-small', thinking: 'off' });
    for (let i = 0; i < 3; i++) {
      fake.script.push({ text: `Answer ${i}: ${'words '.repeat(300)}` });
      await host.session.turns.prompt(`Question ${i}.`);
    }
    const from = events.length;
    fake.overflowNext = true;
    fake.script.push({ text: 'Answered after the retry.' });
    await host.session.turns.prompt('One more question.');
    const mine = events.slice(from);
    assert.ok(
      mine.some((e) => e.type === 'compaction' && e.report.trigger === 'overflow'),
      `events: ${mine.map((e) => e.type).join(',')}`,
    );
    assert.equal(lastAnswer(host.session.sessions.messages), 'Answered after the retry.');
  });

  it('the session keeps its model: a new session starts on the default, reopening brings the fake model back', async () => {
    const { host } = await activateHeadroom();
    const id = host.session.sessions.state().sessionId;
    await host.session.storage.flush();
    await host.session.sessions.create();
    assert.notEqual(host.session.models.choice().provider, 'vscode-lm');
    await host.session.sessions.open(id);
    assert.deepEqual(host.session.models.choice(), { provider: 'vscode-lm', model: 'fake-small', thinking: 'off' });
    assert.equal(host.session.turns.measure().contextWindow, WINDOW);
  });
});
