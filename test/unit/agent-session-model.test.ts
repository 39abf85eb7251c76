import assert from 'node:assert/strict';
import { SessionModel } from '../../src/agent/session-model';
import { parseModelChoice, serializeModelChoice, type ModelChoice } from '../../src/context/model-choice';

/** Sessions stored as the store keeps them: the serialized choice per session id. */
function fakeStore() {
  const rows = new Map<string, string>();
  return {
    rows,
    saver: (id: string) => (c: ModelChoice) => {
      rows.set(id, serializeModelChoice(c));
      return Promise.resolve();
    },
    load: (id: string) => parseModelChoice(rows.get(id)),
  };
}

describe('agent session model: remembered per session, defaults from the settings', () => {
  const sonnet: ModelChoice = { provider: 'anthropic', model: 'claude-sonnet-4-5', thinking: 'off' };
  const gpt5: ModelChoice = { provider: 'openai', model: 'gpt-5', thinking: 'high' };

  it('a new session starts on the default and stores it; a switch is stored; resuming brings it back', async () => {
    let settings = sonnet;
    const store = fakeStore();
    const a = new SessionModel({ defaults: () => settings, save: store.saver('a') }, store.load('a'));
    assert.deepEqual(a.current(), sonnet);
    assert.deepEqual(store.load('a'), sonnet, 'stored at once');

    await a.set(gpt5);
    settings = gpt5; // the picker makes it the default for new sessions too
    assert.deepEqual(a.current(), gpt5);

    // Another session, opened later with other defaults, keeps its own model.
    settings = sonnet;
    const b = new SessionModel({ defaults: () => settings, save: store.saver('b') }, store.load('b'));
    assert.deepEqual(b.current(), sonnet);

    // Resuming session a: its model comes back, whatever the settings say now.
    const resumed = new SessionModel({ defaults: () => settings, save: store.saver('a') }, store.load('a'));
    assert.deepEqual(resumed.current(), gpt5);
  });

  it('changing the settings while a session is open switches that session (and stores it)', () => {
    let settings = sonnet;
    const store = fakeStore();
    const s = new SessionModel({ defaults: () => settings, save: store.saver('s') }, gpt5);
    assert.deepEqual(s.current(), gpt5, 'the stored model wins over unchanged settings');
    settings = { ...sonnet, model: 'claude-opus-4-5' };
    assert.deepEqual(s.current(), settings);
    assert.deepEqual(store.load('s'), settings);
  });

  it('reports a store failure and keeps the choice in memory', async () => {
    const errors: string[] = [];
    const s = new SessionModel(
      { defaults: () => sonnet, save: () => Promise.reject(new Error('disk full')), onError: (m) => errors.push(m) },
      sonnet,
    );
    await s.set(gpt5);
    assert.deepEqual(s.current(), gpt5);
    assert.match(errors.join('\n'), /model was not saved: disk full/);
  });
});
