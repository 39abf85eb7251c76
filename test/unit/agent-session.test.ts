import assert from 'node:assert/strict';
import { AgentSession } from '../../src/agent/session';
import type { AgentEvent } from '../../src/agent/events';
import type { Message } from '../../src/providers/types';
import { createHarness, danglingCalls, slowTool, textOf, type Harness } from '../fixtures/agent/harness';

describe('agent session: prompt, steer, stop', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  function session(persisted: Message[][] = []): { s: AgentSession; events: AgentEvent[] } {
    const { persist: _p, steering: _s, ...rest } = h.config;
    const s = new AgentSession({
      turnConfig: () => rest,
      system: () => h.system,
      persistence: { append: (messages) => Promise.resolve(void persisted.push(messages)) },
    });
    const events: AgentEvent[] = [];
    s.onDidEvent((e) => events.push(e));
    return { s, events };
  }

  it('runs a turn per prompt and keeps the view', async () => {
    h = await createHarness();
    const persisted: Message[][] = [];
    const { s, events } = session(persisted);
    h.server.script.push({ text: 'one' }, { text: 'two' });
    assert.equal((await s.prompt('first')).reason, 'done');
    assert.equal((await s.prompt('second')).reason, 'done');
    assert.deepEqual(
      s.messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.equal(persisted.flat().length, 4);
    assert.equal(events.filter((e) => e.type === 'turn_end').length, 2);
    assert.equal(s.isRunning, false);
    s.dispose();
  });

  it('queues a prompt sent while a turn runs and delivers it at the next iteration', async () => {
    const slow = slowTool(200);
    h = await createHarness({ extraTools: [slow.tool] });
    const { s } = session();
    h.server.script.push({ toolCalls: [{ id: 's1', name: 'slow_tool', arguments: {} }] }, { text: 'noted' });
    const first = s.prompt('start');
    await slow.started;
    assert.equal(s.isRunning, true);
    const second = s.prompt('also do this');
    assert.equal(s.queued.length, 1);
    const [r1, r2] = await Promise.all([first, second]);
    assert.equal(r1, r2, 'the queued prompt joins the running turn');
    assert.deepEqual(
      s.messages.map((m) => m.role),
      ['user', 'assistant', 'toolResult', 'user', 'assistant'],
    );
    assert.equal(textOf(s.messages[3]), 'also do this');
    s.dispose();
  });

  it('stop() aborts the running turn and leaves the view consistent', async () => {
    const slow = slowTool();
    h = await createHarness({ extraTools: [slow.tool] });
    const { s } = session();
    h.server.script.push({ toolCalls: [{ id: 's1', name: 'slow_tool', arguments: {} }] });
    const turn = s.prompt('start');
    await slow.started;
    s.stop();
    const r = await turn;
    assert.equal(r.reason, 'aborted');
    assert.deepEqual(danglingCalls(s.messages), []);
    assert.equal(s.isRunning, false);
    s.dispose();
  });

  it('reports a turn that cannot be wired as a failed turn, without rejecting', async () => {
    h = await createHarness();
    const s = new AgentSession({
      turnConfig: () => {
        throw new Error('Open a folder first: Headroom works on a workspace.');
      },
      system: () => h.system,
    });
    const events: AgentEvent[] = [];
    s.onDidEvent((e) => events.push(e));
    const r = await s.prompt('hello');
    assert.equal(r.reason, 'error');
    assert.match(r.error?.message ?? '', /Open a folder first/);
    assert.deepEqual(
      events.map((e) => e.type),
      ['error', 'turn_end'],
    );
    assert.equal(s.isRunning, false);
    assert.deepEqual(s.messages, []);
    s.dispose();
  });

  it('starts the next turn with a message queued too late for the running one', async () => {
    h = await createHarness();
    const { s, events } = session();
    h.server.script.push({ text: 'first answer' }, { text: 'late answer' });
    let sent = false;
    s.onDidEvent((e) => {
      if (e.type === 'turn_end' && !sent) {
        sent = true;
        void s.prompt('a late message');
      }
    });
    await s.prompt('first');
    await new Promise<void>((resolve) => s.onDidEvent((e) => e.type === 'turn_end' && resolve()));
    assert.equal(events.filter((e) => e.type === 'turn_start').length, 2);
    assert.deepEqual(
      s.messages.map((m) => textOf(m)),
      ['first', 'first answer', 'a late message', 'late answer'],
    );
    s.dispose();
  });
});
