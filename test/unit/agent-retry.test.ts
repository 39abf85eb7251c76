import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { AgentSession } from '../../src/agent/session';
import type { Message } from '../../src/providers/types';
import { createHarness, textOf, type Harness } from '../fixtures/agent/harness';

/** How many times `text` occurs in a request body the fake provider received. */
function occurrences(body: unknown, text: string): number {
  return JSON.stringify(body).split(text).length - 1;
}

describe('agent session: Retry runs the failed turn again, never a copy of its prompt', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  function session(persisted: Message[][] = []): { s: AgentSession; events: AgentEvent[]; resumed: boolean[] } {
    const { persist: _p, steering: _s, ...rest } = h.config;
    const resumed: boolean[] = [];
    const s = new AgentSession({
      turnConfig: (r) => (resumed.push(r), rest),
      system: () => h.system,
      persistence: { append: (messages) => Promise.resolve(void persisted.push(messages)) },
    });
    const events: AgentEvent[] = [];
    s.onDidEvent((e) => events.push(e));
    return { s, events, resumed };
  }

  it('send, 401, 401, success: the prompt is in the context, the store, the chat and the request once', async () => {
    h = await createHarness();
    const persisted: Message[][] = [];
    const { s, events, resumed } = session(persisted);
    const prompt = 'rename the parser module';
    h.server.script.push({ fault: 'auth' }, { fault: 'auth' }, { text: 'Renamed.' });
    assert.equal((await s.prompt(prompt)).reason, 'error');
    assert.equal(s.canRetry, true);
    assert.equal((await s.retry()).reason, 'error');
    const done = await s.retry();
    assert.equal(done.reason, 'done');
    assert.deepEqual(resumed, [false, true, true], 'both retries go on with the failed turn');

    assert.deepEqual(
      s.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(textOf(s.messages[0]), prompt);
    assert.equal(persisted.flat().filter((m) => m.role === 'user').length, 1, 'stored once');
    const shown = events.filter((e) => e.type === 'message_start' && e.role === 'user');
    assert.equal(shown.length, 1, 'the chat gets the prompt once');
    assert.deepEqual(
      events.filter((e) => e.type === 'turn_start').map((e) => e.type === 'turn_start' && e.resumed === true),
      [false, true, true],
    );
    assert.equal(h.server.requests.length, 3);
    for (const r of h.server.requests) assert.equal(occurrences(r.body, prompt), 1, 'each request carries the prompt once');
    assert.equal(s.canRetry, false, 'nothing left to retry after the answer worked');
    s.dispose();
  });

  it('a turn that could not start sends its prompt when retried', async () => {
    h = await createHarness();
    const { persist: _p, steering: _s, ...rest } = h.config;
    let wired = false;
    const s = new AgentSession({
      turnConfig: () => {
        if (!wired) throw new Error('Open a folder first: Headroom works on a workspace.');
        return rest;
      },
      system: () => h.system,
    });
    h.server.script.push({ text: 'Hello.' });
    assert.equal((await s.prompt('hello')).reason, 'error');
    wired = true;
    assert.equal((await s.retry()).reason, 'done');
    assert.deepEqual(
      s.messages.map((m) => textOf(m)),
      ['hello', 'Hello.'],
    );
    s.dispose();
  });

  it('refuses when the last turn did not fail, and after a new prompt replaced the failed one', async () => {
    h = await createHarness();
    const { s } = session();
    await assert.rejects(s.retry(), /no failed turn/);
    h.server.script.push({ fault: 'auth' }, { text: 'ok' });
    await s.prompt('first');
    await s.prompt('second');
    await assert.rejects(s.retry(), /no failed turn/);
    s.dispose();
  });
});
