import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { costOf } from '../../src/context/cost';
import { pricesFor } from '../../src/context/models';
import { compactionCard } from '../../src/panel/compaction-card';
import type { SessionService } from '../../src/app/session-service';
import { createFakeWorld, type FakeEnvironment, type FakeWorld } from '../fixtures/app/fake-environment';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';

/**
 * A session on a model whose Models API entry declares `compact_20260112`: the provider writes the
 * summary, and everything Headroom promises holds around it (transcript, instructions, search, undo,
 * the compaction's real cost); the setting turns it off.
 */
/** Whether a recorded request asks for the provider's compaction (agent requests may carry context editing). */
const asksCompaction = (r: { body: Record<string, unknown> }) =>
  JSON.stringify((r.body.context_management as { edits?: unknown } | undefined)?.edits ?? []).includes('compact_20260112');

describe('session service: native compaction on a model that declares it', function () {
  this.timeout(600_000);
  let world: FakeWorld;
  beforeEach(async () => {
    world = await createFakeWorld({ 'README.md': '# test\n' }, { server: { window: 200_000, apiKey: 'test-key', lineup: TODAYS_LINEUP } });
  });
  afterEach(async () => world?.close());

  /** A session on Sonnet 5.5 with an instruction, then enough turns for the provider's smallest trigger. */
  async function longSession(): Promise<{ service: SessionService; events: AgentEvent[]; env: FakeEnvironment }> {
    const { service, env } = await world.open({ models: {} });
    await service.sessions.create();
    await service.turns.setModel({ provider: 'anthropic', model: 'claude-sonnet-5-5', thinking: 'off' });
    const events: AgentEvent[] = [];
    service.onDidEvent((e) => events.push(e));
    world.server.script.push({ text: 'Noted: the port stays at 8080 in every config.' });
    await service.turns.prompt('Always keep the port at 8080 (rule PORT-1).');
    for (let i = 0; i < 9; i++) {
      world.server.script.push({ text: `Answer ${i}: part ${i} is done.` });
      await service.turns.prompt(`Part ${i} of the work: ${`module${i} handles request routing and retries. `.repeat(800)}`);
    }
    return { service, events, env };
  }

  it('compacts natively; the ledger of promises holds: instructions carried, search finds what left, undo restores, real cost', async () => {
    const { service } = await longSession();
    const before = JSON.stringify(service.sessions.messages);
    const report = await service.compactions.compact();
    assert.ok(report, 'a compaction ran');
    assert.ok(report.strategies.includes('native_summary'), `strategies: ${report.strategies.join(', ')}`);
    const native = world.server.requests.find(asksCompaction);
    assert.ok(native?.compaction, 'the provider compacted');
    assert.deepEqual(report.cost, native.compaction, "the card's cost is the compaction iteration");
    assert.equal(report.model, 'claude-sonnet-5-5', 'priced as the session model');
    // The card prices the compaction as the panel does: the report's model and usage.
    const prices = pricesFor(report.model);
    assert.ok(prices, 'Sonnet 5.5 has prices');
    const dollars = costOf(report.cost, prices);
    assert.ok(dollars > 0);
    const card = compactionCard('c1', report, undefined, dollars);
    assert.match(card.text, /cost \$\d/, card.text);
    assert.equal(card.cost, dollars);

    const view = JSON.stringify(service.sessions.messages);
    assert.match(view, /Summary written as instructed/, "the provider's summary is in Headroom's history message");
    assert.match(view, /Always keep the port at 8080/, "the user's instruction is carried");
    assert.ok(!view.includes('Noted: the port stays'), 'the answer left the context');
    assert.ok(service.sessions.state().messageCount < service.sessions.state().transcriptCount, 'the transcript keeps everything');

    world.server.script.push({ text: 'Next answer.' });
    await service.turns.prompt('What is next?');
    const next = world.server.requests.at(-1)!;
    assert.ok(!asksCompaction(next), 'an ordinary request after it');
    assert.match(JSON.stringify((next.body.messages as unknown[])[0]), /Summary written as instructed[\s\S]*Always keep the port at 8080/);

    const { hits, total } = await service.search.searchHistory('the port stays at 8080');
    assert.equal(total, 1, 'search_history finds the compacted answer');
    assert.equal(hits[0].role, 'assistant');

    assert.ok(before.length > view.length);
  });

  it('undo restores the view from before the native compaction', async () => {
    const { service } = await longSession();
    const before = JSON.stringify(service.sessions.messages);
    const report = await service.compactions.compact();
    assert.ok(report?.strategies.includes('native_summary'));
    assert.equal((await service.sessions.history()).canUndoCompaction, true);
    await service.compactions.undo();
    assert.equal(JSON.stringify(service.sessions.messages), before, 'undo restores the view exactly');
  });

  it("asks the provider to clear old tool results past the note threshold, never Headroom's history and plan tools", async () => {
    const { service } = await world.open({ models: {} });
    await service.sessions.create();
    await service.turns.setModel({ provider: 'anthropic', model: 'claude-sonnet-5-5', thinking: 'off' });
    world.server.script.push({ text: 'Hello.' });
    await service.turns.prompt('Hi');
    const edits = (world.server.requests.at(-1)!.body.context_management as { edits: Array<Record<string, unknown>> }).edits;
    assert.equal(edits.length, 1, 'thinking off, and Sonnet 5.5 declares no thinking edit');
    const clear = edits[0];
    assert.equal(clear.type, 'clear_tool_uses_20250919');
    const window = service.models.limits().effectiveWindow;
    assert.deepEqual(clear.trigger, { type: 'input_tokens', value: Math.ceil(0.8 * window) });
    assert.deepEqual(clear.keep, { type: 'tool_uses', value: 3 });
    assert.deepEqual([...(clear.exclude_tools as string[])].sort(), ['read_result', 'search_history', 'tool_search', 'update_plan']);
  });

  it('goes on without context editing the provider refuses, for the rest of the session, and logs it once', async () => {
    const { service, env } = await world.open({ models: {} });
    await service.sessions.create();
    await service.turns.setModel({ provider: 'anthropic', model: 'claude-sonnet-5-5', thinking: 'off' });
    world.server.script.push(
      { fault: 'invalid_request', message: 'context_management: Extra inputs are not permitted' },
      { text: 'Answered without it.' },
      { text: 'Second answer.' },
    );
    await service.turns.prompt('Hi');
    await service.turns.prompt('And again');
    const sent = world.server.requests
      .filter((r) => r.protocol === 'anthropic' && r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens'))
      .map((r) => ({ status: r.status, edits: r.body.context_management !== undefined }));
    assert.deepEqual(sent, [
      { status: 400, edits: true },
      { status: 200, edits: false },
      { status: 200, edits: false },
    ]);
    assert.match(JSON.stringify(service.sessions.messages), /Answered without it[\s\S]*Second answer/);
    assert.equal(env.logLines.filter((l) => /context editing refused by anthropic for claude-sonnet-5-5/.test(l)).length, 1);
  });

  it("with headroom.compaction.native off, Headroom writes the summary and the provider's compaction is never asked", async () => {
    const { service, env } = await longSession();
    env.settingsNow.compaction = { ...env.settingsNow.compaction, native: false };
    world.server.script.push({ text: '## Goal\nHeadroom summary.' });
    const report = await service.compactions.compact();
    assert.ok(report && !report.strategies.includes('native_summary'), `strategies: ${report?.strategies.join(', ')}`);
    assert.ok(!world.server.requests.some(asksCompaction));
    assert.match(JSON.stringify(service.sessions.messages), /Headroom summary/);
  });
});
