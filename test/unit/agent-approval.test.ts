import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHarness, danglingCalls, textOf, type Harness } from '../fixtures/agent/harness';

describe('agent loop: approvals and workspace trust', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('reports a rejected edit to the model and writes nothing', async () => {
    h = await createHarness({ decision: { approved: false, reason: 'not this file' } });
    h.server.script.push(
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'new.txt', content: 'hello' } }] },
      { text: 'Understood, I will not write it.' },
    );
    const r = await h.turn('create new.txt');
    assert.equal(r.reason, 'done');
    assert.equal(h.approvals.requests.length, 1);
    assert.equal(h.approvals.requests[0].kind, 'edit');
    assert.equal(existsSync(join(h.root, 'new.txt')), false);
    const result = h.view.find((m) => m.role === 'toolResult');
    assert.ok(result && result.isError);
    assert.match(textOf(result), /not this file/);
    assert.match(JSON.stringify(h.server.requests[1].body.messages), /not this file/);
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('writes an approved edit', async () => {
    h = await createHarness({ files: { 'a.txt': 'one two three' } });
    h.server.script.push(
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { path: 'a.txt', old_text: 'two', new_text: 'TWO' } }] },
      { text: 'Edited.' },
    );
    await h.turn('edit a.txt');
    assert.equal(h.approvals.requests.length, 1);
    assert.equal(readFileSync(join(h.root, 'a.txt'), 'utf8'), 'one TWO three');
  });

  it('refuses edits and commands in an untrusted workspace, without asking', async () => {
    h = await createHarness({ trusted: false, files: { 'a.txt': 'keep' } });
    h.server.script.push(
      {
        toolCalls: [
          { id: 'w1', name: 'write_file', arguments: { path: 'a.txt', content: 'changed' } },
          { id: 'r1', name: 'run_command', arguments: { command: 'echo hi > b.txt' } },
          { id: 'ok', name: 'read_file', arguments: { path: 'a.txt' } },
        ],
      },
      { text: 'The workspace is not trusted.' },
    );
    const r = await h.turn('change a.txt');
    assert.equal(r.reason, 'done');
    assert.equal(h.approvals.requests.length, 0);
    assert.equal(readFileSync(join(h.root, 'a.txt'), 'utf8'), 'keep');
    assert.equal(existsSync(join(h.root, 'b.txt')), false);
    const results = h.view.filter((m) => m.role === 'toolResult');
    assert.equal(results.length, 3);
    assert.match(textOf(results[0]), /not trusted/);
    assert.match(textOf(results[1]), /not trusted/);
    assert.equal(results[2].isError, false, 'reading is still allowed');
    assert.match(JSON.stringify(h.server.requests[1].body.messages), /not trusted/);
  });
});
