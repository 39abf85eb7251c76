import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { StreamEvent } from '../../src/providers/types';
import { createHarness, danglingCalls, slowTool, textOf, type Harness } from '../fixtures/agent/harness';
import { replayStream } from '../fixtures/fake-provider/factories';

describe('agent loop: stop', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('aborts the model stream, keeps what arrived and ends the turn', async () => {
    h = await createHarness();
    h.server.script.push({ fault: 'hang', partialText: 'I was about to say' });
    const controller = new AbortController();
    const r = await h.turn('question', controller.signal, (e) => {
      if (e.type === 'message_delta') controller.abort();
    });
    assert.equal(r.reason, 'aborted');
    assert.equal(h.server.requests.length, 1, 'no further request');
    const end = h.events.find((e) => e.type === 'message_end' && e.message.role === 'assistant');
    assert.ok(end && end.type === 'message_end' && end.message.role === 'assistant' && end.message.stopReason === 'aborted');
    assert.deepEqual(danglingCalls(h.view), []);
    assert.equal(h.events[h.events.length - 1].type, 'turn_end');
  });

  it('aborts a running tool; every call of the batch still gets a result', async () => {
    const slow = slowTool();
    h = await createHarness({ extraTools: [slow.tool] });
    h.server.script.push({
      toolCalls: [
        { id: 's1', name: 'slow_tool', arguments: {} },
        { id: 'w1', name: 'write_file', arguments: { path: 'never.txt', content: 'x' } },
      ],
    });
    const controller = new AbortController();
    void slow.started.then(() => controller.abort());
    const r = await h.turn('run the slow tool', controller.signal);
    assert.equal(r.reason, 'aborted');
    assert.equal(h.server.requests.length, 1, 'the model is not asked again');
    const results = h.view.filter((m) => m.role === 'toolResult');
    assert.deepEqual(
      results.map((m) => [m.toolCallId, m.isError]),
      [
        ['s1', true],
        ['w1', true],
      ],
    );
    assert.match(textOf(results[0]), /stopped by the user/);
    assert.match(textOf(results[1]), /stopped by the user/);
    assert.equal(existsSync(join(h.root, 'never.txt')), false, 'the second call never ran');
    assert.equal(h.approvals.requests.length, 0);
    assert.deepEqual(danglingCalls(h.view), []);
    // Persisted together: the call and its results.
    const last = h.persisted[h.persisted.length - 1];
    assert.deepEqual(
      last.messages.map((m) => m.role),
      ['assistant', 'toolResult', 'toolResult'],
    );
  });

  it('a stopped session continues normally with the next prompt', async () => {
    const slow = slowTool();
    h = await createHarness({ extraTools: [slow.tool] });
    h.server.script.push({ toolCalls: [{ id: 's1', name: 'slow_tool', arguments: {} }] }, { text: 'fresh start' });
    const controller = new AbortController();
    void slow.started.then(() => controller.abort());
    await h.turn('slow', controller.signal);
    const r = await h.turn('again');
    assert.equal(r.reason, 'done');
    assert.deepEqual(
      h.view.map((m) => m.role),
      ['user', 'assistant', 'toolResult', 'user', 'assistant'],
    );
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('answers a call that had streamed completely before the stop, without running it', async () => {
    h = await createHarness();
    const call = { type: 'toolCall' as const, id: 'streamed', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } };
    const events: StreamEvent[] = [
      { type: 'start' },
      { type: 'toolcall_start', id: call.id, name: call.name },
      { type: 'toolcall_end', call },
      {
        type: 'done',
        message: {
          role: 'assistant',
          content: [call],
          provider: 'anthropic',
          model: 'fake-model',
          partial: true,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          stopReason: 'aborted',
          error: { kind: 'aborted', message: 'Request aborted.' },
          timestamp: 0,
        },
      },
    ];
    h.config.provider = {
      id: 'anthropic',
      stream: () => replayStream(events),
    };
    const r = await h.turn('write');
    assert.equal(r.reason, 'aborted');
    assert.deepEqual(
      h.view.map((m) => m.role),
      ['user', 'assistant', 'toolResult'],
    );
    assert.equal(existsSync(join(h.root, 'x.txt')), false);
    assert.equal(h.approvals.requests.length, 0);
    assert.deepEqual(danglingCalls(h.view), []);
    assert.deepEqual(
      h.persisted[h.persisted.length - 1].messages.map((m) => m.role),
      ['assistant', 'toolResult'],
    );
  });
});
