import assert from 'node:assert/strict';
import { AgentSession } from '../../src/agent/session';
import { storePersistence } from '../../src/agent/store-persistence';
import type { HeadroomStore } from '../../src/store';
import { createHarness, danglingCalls, type Harness } from '../fixtures/agent/harness';
import { cleanup, open, tempRoot } from '../fixtures/store/helpers';

describe('agent session persisted in the session store', () => {
  let h: Harness;
  let root: string;
  let store: HeadroomStore;
  afterEach(async () => {
    await store?.close();
    if (root) cleanup(root);
    await h?.close();
  });

  it('stores each turn with its calls and results, counts and hashes, and resumes from it', async () => {
    h = await createHarness({ files: { 'a.txt': 'alpha' } });
    root = tempRoot();
    store = await open(root);
    const { id } = await store.sessions.create('agent');
    const { persist: _p, steering: _s, ...config } = h.config;
    const family = h.limits.family;
    const session = new AgentSession({
      turnConfig: () => config,
      system: () => h.system,
      persistence: storePersistence(store.sessions, id, (m) => h.gate.ledger.count(m, family)),
    });
    h.server.script.push(
      { toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] },
      { text: 'read it' },
      { text: 'second' },
    );
    await session.prompt('read a.txt');
    await session.prompt('and now?');
    session.dispose();

    const transcript = await store.sessions.transcript(id);
    assert.deepEqual(
      transcript.map((m) => [m.turn, m.message.role]),
      [
        [1, 'user'],
        [1, 'assistant'],
        [1, 'toolResult'],
        [1, 'assistant'],
        [2, 'user'],
        [2, 'assistant'],
      ],
    );
    assert.ok(transcript.every((m) => typeof m.tokens === 'number' && m.tokens > 0 && typeof m.contentHash === 'string'));
    const resumed = transcript.map((m) => m.message);
    assert.deepEqual(resumed, [...session.messages]);
    assert.deepEqual(danglingCalls(resumed), []);
  });
});
