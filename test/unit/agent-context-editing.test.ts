import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { cacheMiss } from '../../src/context/cache-truth';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';
import { createHarness, type Harness } from '../fixtures/agent/harness';
import { EDITING, toolConversation } from '../fixtures/agent/tool-conversation';

/**
 * The loop with the provider's own context editing, against the fake on 127.0.0.1 with the real SDK:
 * what the server cleared is shown by tool and target, its figure is judged, and a refusal is retried without it.
 */
describe('agent loop: the provider clears old tool results itself', () => {
  let server: FakeProvider;
  let h: Harness;
  beforeEach(async () => {
    server = await startFakeProvider({ lineup: TODAYS_LINEUP });
    h = await createHarness({ server });
  });
  afterEach(async () => {
    await h.close();
    await server.close();
  });

  const clearingsOf = (events: AgentEvent[]) => events.flatMap((e) => (e.type === 'context_edits' ? [e.clearing] : []));

  it('shows which tool uses the server cleared, by tool and target; the view keeps them', async () => {
    h.config.model = 'claude-sonnet-5-5';
    h.config.request = { contextEditing: EDITING };
    h.view = toolConversation(4);
    const presenter = new ChatPresenter(
      () => {},
      () => 0,
    );
    server.script.push({ text: 'done' });
    const r = await h.turn('go on', undefined, (e) => presenter.handle(e));
    assert.equal(r.reason, 'done');
    const [clearing] = clearingsOf(h.events);
    assert.ok(clearing, 'the clearing is reported');
    assert.deepEqual(
      clearing.toolUses.map((u) => `${u.toolName} ${u.target}`),
      ['read_file src/file0.ts', 'read_file src/file1.ts'],
    );
    const applied = server.requests.at(-1)!.appliedEdits as Array<{ cleared_input_tokens: number }>;
    assert.equal(clearing.reportedTokens, applied[0].cleared_input_tokens);
    assert.equal(clearing.tokens, clearing.reportedTokens, 'a plausible figure is used');
    assert.equal(clearing.doubt, undefined);
    const notice = presenter.transcript.items.find((i) => i.kind === 'notice' && /provider cleared/.test(i.text));
    assert.ok(notice && notice.kind === 'notice' && notice.level === 'info');
    assert.match(notice.text, /read_file src\/file0\.ts; read_file src\/file1\.ts/);
    assert.match(notice.text, /search_history finds them/);
    // Headroom's own view still holds every result, as sent.
    const kept = h.view.filter((m) => m.role === 'toolResult' && /contents of file 0/.test(JSON.stringify(m.content)));
    assert.equal(kept.length, 1);
    // The next answer clears the same uses again: nothing new to name.
    server.script.push({ text: 'again' });
    await h.turn('and again', undefined, (e) => presenter.handle(e));
    assert.equal(presenter.transcript.items.filter((i) => i.kind === 'notice' && /provider cleared/.test(i.text)).length, 1);
  });

  it('names the cache the clearing cost: the miss of the request it cleared in is "cleared", not unexplained', async () => {
    h.config.model = 'claude-sonnet-5-5';
    h.view = toolConversation(4);
    // First without editing: the whole prompt is written to the cache.
    h.config.request = { cacheTail: true };
    server.script.push({ text: 'first' });
    await h.turn('look again');
    // Then the server clears old results: what it reads changes from the first cleared one on.
    h.config.request = { cacheTail: true, contextEditing: EDITING };
    server.script.push({ text: 'second' });
    await h.turn('go on');
    const sent = h.events.flatMap((e) => (e.type === 'usage' && e.shape ? [{ usage: e.usage, shape: e.shape }] : []));
    assert.equal(sent.length, 2);
    assert.ok(clearingsOf(h.events).length, 'the server cleared');
    const miss = cacheMiss(sent[0], sent[1], undefined);
    assert.ok(miss, `the clearing missed the cache: ${JSON.stringify(sent.map((x) => x.usage))}`);
    assert.equal(miss.reason, 'cleared');
    assert.ok(miss.missedTokens > 0);
  });

  it('does not believe a cleared figure beyond what was sent, nor more uses than could go', async () => {
    h.config.model = 'claude-sonnet-5-5';
    h.config.request = { contextEditing: EDITING };
    h.view = toolConversation(4);
    server.script.push({
      text: 'done',
      rawContextManagement: {
        applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 40, cleared_input_tokens: 9_000_000 }],
      },
    });
    await h.turn('go on');
    const [clearing] = clearingsOf(h.events);
    assert.ok(clearing);
    assert.equal(clearing.toolUses.length, 2, 'no more than the uses not kept or excluded');
    assert.equal(clearing.tokens, 0, 'the figure is not used');
    assert.equal(clearing.reportedTokens, 9_000_000);
    assert.match(clearing.doubt ?? '', /40 tool uses reported cleared, 2 could be; 9M tokens reported cleared/);
  });

  it('retries a request whose edits the server refuses without them, once, and says so', async () => {
    h.config.model = 'claude-petite-5'; // declares no context management: the server refuses the edits
    h.config.maxOutputTokens = 4000;
    h.config.request = { contextEditing: EDITING };
    const refusals: string[] = [];
    h.config.onContextEditingRefused = (m) => refusals.push(m);
    h.view = toolConversation(2);
    server.script.push({ toolCalls: [{ name: 'update_plan', arguments: { items: [{ step: 'a', status: 'done' }] } }] }, { text: 'done' });
    const r = await h.turn('go on');
    assert.equal(r.reason, 'done', JSON.stringify([r.error, server.requests.map((q) => q.status)]));
    assert.equal(refusals.length, 1);
    assert.match(refusals[0], /clear_tool_uses_20250919 is not supported for this model/);
    const sent = server.requests.map((q) => ({ status: q.status, edits: q.body.context_management !== undefined }));
    assert.deepEqual(sent, [
      { status: 400, edits: true },
      { status: 200, edits: false },
      { status: 200, edits: false },
    ]);
    assert.equal(h.config.request.contextEditing, undefined, "the turn's later requests go without them");
    assert.ok(!h.events.some((e) => e.type === 'error'), 'no error is shown for the refused edits');
  });
});
