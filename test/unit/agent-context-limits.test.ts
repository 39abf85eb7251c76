import assert from 'node:assert/strict';
import { FINAL_TURN_NOTE } from '../../src/agent/system-notes';
import { createHarness, danglingCalls, textOf, type Harness } from '../fixtures/agent/harness';
import { fillTo } from '../fixtures/agent/fill';

const TIGHT = { note: 0.5, background: 0.5, compact: 0.6, block: 0.7 };
const neverCompacts = () => Promise.resolve(undefined);

describe('agent loop: awareness note, compaction and the forced final turn', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  /** One short turn so the gate knows the system prompt and tool definitions. */
  async function warmUp(): Promise<void> {
    h.server.script.push({ text: 'ready' });
    await h.turn('hello');
  }

  it('adds the uncached awareness note from 80 % of the effective window on, after the last cache breakpoint', async () => {
    h = await createHarness({ window: 32_000 });
    h.config.request = { cacheTail: true };
    await warmUp();
    assert.doesNotMatch(JSON.stringify(h.server.requests[0].body), /Context: \d+ % used/);
    await fillTo(h, 0.85);
    h.server.script.push({ text: 'ok' });
    const r = await h.turn('next');
    assert.equal(r.reason, 'done');
    const req = h.server.requests[1];
    assert.doesNotMatch(JSON.stringify(req.body.system), /Context: \d+ % used/, 'not in the system prompt');
    const messages = req.body.messages as Array<{ role: string; content: Array<{ type: string; text?: string; cache_control?: unknown }> }>;
    const last = messages[messages.length - 1];
    const note = last.content[last.content.length - 1];
    assert.equal(last.role, 'user');
    assert.match(note.text ?? '', /^\[Context: (8\d|9\d) % used\. compact_context frees space\.\]$/);
    assert.equal(note.cache_control, undefined, 'the note is never cached');
    assert.ok(last.content[last.content.length - 2].cache_control, 'the tail breakpoint sits right before the note');
    assert.ok(req.tools.length > 0, 'tools are still offered');
  });

  it('compacts at the threshold with the fallback, keeping tool pairs and the newest turns', async () => {
    h = await createHarness({ window: 32_000, files: { 'a.txt': 'alpha' } });
    await warmUp();
    await fillTo(h, 0.97);
    const before = h.view.length;
    h.server.script.push({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'done' });
    const r = await h.turn('continue');
    assert.equal(r.reason, 'done');
    const compaction = h.events.find((e) => e.type === 'compaction');
    assert.ok(compaction && compaction.type === 'compaction');
    assert.deepEqual(compaction.report.strategies, ['drop_oldest_turns']);
    assert.ok(compaction.report.afterTokens <= 0.35 * h.limits.effectiveWindow, `after: ${compaction.report.afterTokens}`);
    assert.ok(compaction.report.afterMessages < before);
    assert.equal(h.view[0].role, 'user');
    assert.match(textOf(h.view[0]), /earlier messages were removed from the context/);
    assert.ok(h.server.requests[1].tools.length > 0, 'a normal request after compaction');
    assert.deepEqual(danglingCalls(h.view), []);
    assert.equal(textOf(h.view[h.view.length - 1]), 'done');
  });

  it('forces a final turn without tools when compaction cannot get under the block threshold', async () => {
    h = await createHarness({ window: 32_000, gate: { thresholds: TIGHT, compact: neverCompacts } });
    await warmUp();
    // Well over the block threshold even without the tool definitions.
    await fillTo(h, 0.8);
    h.server.script.push({ text: 'Here is where we are.', toolCalls: [{ id: 'late', name: 'read_file', arguments: { path: 'x' } }] });
    const r = await h.turn('keep going');
    assert.equal(r.reason, 'context_full');
    assert.equal(h.server.requests.length, 2, 'exactly one final request');
    const req = h.server.requests[1];
    assert.deepEqual(req.tools, [], 'tools removed');
    assert.ok(JSON.stringify(req.body.system).includes(JSON.stringify(FINAL_TURN_NOTE).slice(1, -1)), 'the model is told why');
    // A tool call in the final answer is not run, but still gets its result.
    const result = h.view.find((m) => m.role === 'toolResult' && m.toolCallId === 'late');
    assert.ok(result && result.role === 'toolResult' && result.isError && /context is full/.test(textOf(result)));
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('sends nothing when even the final request would not fit', async () => {
    h = await createHarness({ window: 32_000, gate: { compact: neverCompacts } });
    await warmUp();
    await fillTo(h, 1.05);
    const r = await h.turn('more');
    assert.equal(r.reason, 'context_full');
    assert.equal(h.server.requests.length, 1, 'only the warm-up request');
    const err = h.events.find((e) => e.type === 'error');
    assert.ok(err && err.type === 'error' && err.kind === 'context_overflow');
  });

  it('compacts and retries once when the provider reports a context overflow', async () => {
    h = await createHarness({ window: 32_000 });
    for (let i = 0; i < 4; i++) {
      h.server.script.push({ text: `answer ${i}` });
      await h.turn(`turn ${i}`);
    }
    h.server.script.push({ fault: 'overflow' }, { text: 'after the retry' });
    const r = await h.turn('last');
    assert.equal(r.reason, 'done');
    const compaction = h.events.find((e) => e.type === 'compaction');
    assert.ok(compaction && compaction.type === 'compaction' && compaction.report.trigger === 'overflow');
    assert.equal(textOf(h.view[h.view.length - 1]), 'after the retry');
    assert.ok(!h.events.some((e) => e.type === 'error'), 'the retried overflow is not reported as an error');
  });

  it('stops after maxIterations model requests, answering the pending calls', async () => {
    h = await createHarness({ maxIterations: 2, files: { 'a.txt': 'alpha' } });
    h.server.script.push(
      { toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ id: 'c2', name: 'read_file', arguments: { path: 'a.txt' } }] },
      { text: 'never asked' },
    );
    const r = await h.turn('loop');
    assert.equal(r.reason, 'max_iterations');
    assert.equal(h.server.requests.length, 2);
    const last = h.view[h.view.length - 1];
    assert.ok(last.role === 'toolResult' && last.toolCallId === 'c2' && last.isError);
    assert.match(textOf(last), /maximum number of steps/);
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('runs the compaction the model asks for with compact_context before its next request', async () => {
    h = await createHarness({ window: 32_000 });
    await warmUp();
    await fillTo(h, 0.5);
    const before = h.view.length;
    h.server.script.push({ toolCalls: [{ id: 'k1', name: 'compact_context', arguments: { focus: 'the plan' } }] }, { text: 'room again' });
    const r = await h.turn('compact please');
    assert.equal(r.reason, 'done');
    const result = h.view.find((m) => m.role === 'toolResult' && m.toolCallId === 'k1');
    assert.ok(result && result.role === 'toolResult' && !result.isError);
    assert.match(textOf(result), /scheduled/);
    const compaction = h.events.find((e) => e.type === 'compaction');
    assert.ok(compaction && compaction.type === 'compaction' && compaction.report.trigger === 'tool');
    assert.ok(compaction.report.afterTokens < compaction.report.beforeTokens);
    assert.ok(h.view.length < before);
    assert.ok(h.server.requests[2].inputTokens < h.server.requests[1].inputTokens, 'the next request is smaller');
    assert.deepEqual(danglingCalls(h.view), []);
  });
});
