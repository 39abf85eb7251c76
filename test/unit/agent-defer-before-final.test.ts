import assert from 'node:assert/strict';
import { createHarness, externalTools, type Harness } from '../fixtures/agent/harness';

describe('agent: when tool definitions do not fit, tools are deferred before any forced final answer', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('defers a tool activated this turn instead of forcing a final answer without tools', async () => {
    // A 5k window: the built-in tools plus one activated external tool of ~2k tokens are over the block threshold.
    const external = externalTools(2, 9_000);
    h = await createHarness({ protocol: 'openai', window: 5_000, external });
    h.server.script.push({ toolCalls: [{ id: 'e1', name: 'ext_tool_0', arguments: { query: 'status' } }] }, { text: 'All good.' });
    const r = await h.turn('ask the external tool');
    assert.equal(r.reason, 'done', r.error?.message);
    assert.deepEqual(
      external.calls.map((c) => c.name),
      ['ext_tool_0'],
      'the external tool ran',
    );
    const last = h.server.requests.at(-1)!;
    assert.ok(last.tools.length > 0, 'the request after it still offers tools');
    assert.ok(!last.tools.includes('ext_tool_0'), 'the big tool was deferred again');
    assert.ok(h.server.requests.every((q) => q.outcome !== 'overflow'));
    assert.ok(!h.events.some((e) => e.type === 'turn_end' && e.reason === 'context_full'));
  });
});
