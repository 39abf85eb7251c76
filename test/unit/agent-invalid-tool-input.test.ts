import assert from 'node:assert/strict';
import { createHarness, danglingCalls, textOf, type Harness } from '../fixtures/agent/harness';

describe('agent loop: invalid tool input', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('reports bad arguments to the model and goes on with the turn', async () => {
    h = await createHarness({ files: { 'a.txt': 'alpha' } });
    h.server.script.push(
      { toolCalls: [{ id: 'bad1', name: 'read_file', arguments: { file: 'a.txt' } }] },
      { toolCalls: [{ id: 'bad2', name: 'read_file', arguments: '{"path": "a.txt"' }] },
      { toolCalls: [{ id: 'ok', name: 'read_file', arguments: { path: 'a.txt' } }] },
      { text: 'Got it.' },
    );
    const r = await h.turn('read a.txt');
    assert.equal(r.reason, 'done');
    assert.equal(h.server.requests.length, 4);
    const results = h.view.filter((m) => m.role === 'toolResult');
    assert.equal(results.length, 3);
    assert.equal(results[0].isError, true);
    assert.match(textOf(results[0]), /Invalid input for read_file[\s\S]*path/);
    assert.equal(results[1].isError, true);
    assert.match(textOf(results[1]), /not a valid JSON object/);
    assert.equal(results[2].isError, false);
    // The error is what the model saw in its next request.
    assert.match(JSON.stringify(h.server.requests[1].body.messages), /Invalid input for read_file/);
    assert.match(JSON.stringify(h.server.requests[2].body.messages), /not a valid JSON object/);
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('answers a call to an unknown tool with the list of tools', async () => {
    h = await createHarness();
    h.server.script.push({ toolCalls: [{ id: 'u1', name: 'no_such_tool', arguments: {} }] }, { text: 'sorry' });
    const r = await h.turn('go');
    assert.equal(r.reason, 'done');
    const result = h.view.find((m) => m.role === 'toolResult');
    assert.ok(result && result.isError);
    assert.match(textOf(result), /Unknown tool "no_such_tool"\. Available tools: read_file/);
  });

  it('does not run calls from an answer cut off at the output limit, and says why', async () => {
    h = await createHarness();
    h.server.script.push(
      {
        toolCalls: [{ id: 't1', name: 'write_file', arguments: { path: 'big.txt', content: 'only the first half' } }],
        stopReason: 'maxTokens',
      },
      { text: 'I will write it in parts.' },
    );
    const r = await h.turn('write a big file');
    assert.equal(r.reason, 'done');
    assert.equal(h.approvals.requests.length, 0, 'nothing was run');
    const result = h.view.find((m) => m.role === 'toolResult')!;
    assert.match(textOf(result), /hit the output token limit/);
    assert.equal(h.server.requests.length, 2);
    assert.deepEqual(danglingCalls(h.view), []);
  });
});
