import assert from 'node:assert/strict';
import { createHarness, danglingCalls, externalTools, textOf, type Harness } from '../fixtures/agent/harness';

describe('agent loop: deferred tools', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('leaves deferred tools out of the request and says so in the system prompt', async () => {
    const ext = externalTools(6);
    h = await createHarness({ window: 32_000, external: ext });
    const deferred = h.registry.selection().deferred.map((d) => d.name);
    assert.ok(deferred.length >= 3, `some tools are deferred (${deferred.join(', ')})`);
    h.server.script.push({ text: 'hello' });
    await h.turn('hi');
    const req = h.server.requests[0];
    for (const name of deferred) assert.ok(!req.tools.includes(name), `${name} is not sent`);
    assert.ok(req.tools.includes('read_file') && req.tools.includes('tool_search'), 'built-ins are always sent');
    assert.match(
      JSON.stringify(req.body.system),
      new RegExp(`\\[${deferred.length} tools deferred to save context\\. Use tool_search to find them\\.\\]`),
    );
  });

  it('runs a deferred tool called by name and sends its definition from then on', async () => {
    const ext = externalTools(6);
    h = await createHarness({ window: 32_000, external: ext });
    const name = h.registry.selection().deferred[0].name;
    h.server.script.push({ toolCalls: [{ id: 'x1', name, arguments: { query: 'q' } }] }, { text: 'done' });
    const r = await h.turn('use the tool');
    assert.equal(r.reason, 'done');
    assert.deepEqual(ext.calls, [{ name, input: { query: 'q' } }]);
    const result = h.view.find((m) => m.role === 'toolResult')!;
    assert.equal(result.isError, false);
    assert.match(textOf(result), new RegExp(`${name} ran with`));
    assert.ok(!h.server.requests[0].tools.includes(name));
    assert.ok(h.server.requests[1].tools.includes(name), 'activated for the rest of the turn');
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('activates what tool_search finds, so the model can call it next', async () => {
    const ext = externalTools(6);
    h = await createHarness({ window: 32_000, external: ext });
    const name = h.registry.selection().deferred[1].name;
    h.server.script.push(
      { toolCalls: [{ id: 's1', name: 'tool_search', arguments: { query: name, limit: 1 } }] },
      { toolCalls: [{ id: 'x1', name, arguments: { query: 'found' } }] },
      { text: 'done' },
    );
    await h.turn('find a tool');
    const search = h.view.find((m) => m.role === 'toolResult')!;
    assert.match(textOf(search), new RegExp(`Activated 1 tool[\\s\\S]*"name":"${name}"[\\s\\S]*input_schema`));
    assert.ok(h.server.requests[1].tools.includes(name));
    assert.deepEqual(
      ext.calls.map((c) => c.name),
      [name],
    );
  });
});
