import assert from 'node:assert/strict';
import { createHarness, danglingCalls, textOf, user, type Harness } from '../fixtures/agent/harness';

describe('agent loop: steering', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('delivers a message typed during a tool call before the next model request', async () => {
    h = await createHarness({ files: { 'a.txt': 'alpha' } });
    h.server.script.push({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'Switching to b.' });
    const r = await h.turn('read a.txt', undefined, (e) => {
      if (e.type === 'tool_start') h.steeringQueue.push(user('actually, look at b.txt instead'));
    });
    assert.equal(r.reason, 'done');
    assert.deepEqual(
      h.view.map((m) => m.role),
      ['user', 'assistant', 'toolResult', 'user', 'assistant'],
    );
    assert.equal(textOf(h.view[3]), 'actually, look at b.txt instead');
    assert.match(JSON.stringify(h.server.requests[1].body.messages), /look at b\.txt instead/);
    assert.doesNotMatch(JSON.stringify(h.server.requests[0].body.messages), /look at b\.txt instead/);
    assert.deepEqual(
      h.persisted.map((p) => [p.startsTurn, p.messages.map((m) => m.role).join('+')]),
      [
        [true, 'user'],
        [false, 'assistant+toolResult'],
        [false, 'user'],
        [false, 'assistant'],
      ],
    );
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('answers a message typed while the final answer streams within the same turn', async () => {
    h = await createHarness();
    h.server.script.push({ text: 'A long final answer.', chunkChars: 4 }, { text: 'Answer to the follow-up.' });
    let sent = false;
    const r = await h.turn('question', undefined, (e) => {
      if (e.type === 'message_delta' && !sent) {
        sent = true;
        h.steeringQueue.push(user('and one more thing'));
      }
    });
    assert.equal(r.reason, 'done');
    assert.equal(h.server.requests.length, 2);
    assert.deepEqual(
      h.view.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.equal(textOf(h.view[3]), 'Answer to the follow-up.');
  });
});
