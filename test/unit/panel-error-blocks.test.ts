import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { errorNotice } from '../../src/panel/error-notice';
import type { ChatItem, ChatItemOf } from '../../src/protocol/messages';
import { assistant, user } from './panel-factories';

function setup() {
  const p = new ChatPresenter(
    () => undefined,
    () => 1_000,
  );
  const run = (...events: AgentEvent[]) => events.forEach((e) => p.handle(e));
  const items = (): readonly ChatItem[] => p.transcript.items;
  const notices = () => items().filter((i): i is ChatItemOf<'notice'> => i.kind === 'notice');
  return { p, run, items, notices };
}

const start = (text: string): AgentEvent[] => [
  { type: 'turn_start', turnId: 't', prompt: user(text) },
  { type: 'message_start', role: 'user', message: user(text) },
  { type: 'message_start', role: 'assistant' },
];
const failed = (kind: 'auth' | 'network', message: string, text = ''): AgentEvent[] => [
  { type: 'message_end', message: assistant(text, { stopReason: 'error', error: { kind, message } }) },
  { type: 'error', kind, message },
  { type: 'turn_end', turnId: 't', reason: 'error', messages: [] },
];
const retry = (attempt: number): AgentEvent => ({
  type: 'retry',
  attempt,
  delayMs: 1_000,
  error: { kind: 'network', message: 'Connection to the provider failed: ECONNREFUSED' },
});

describe('panel: one error block per failure, with the next step', () => {
  it('shows a 401 once, with Set API Key and Retry, and no "broke off" note when nothing streamed', () => {
    const s = setup();
    s.run(...start('fix it'), ...failed('auth', 'The API key was rejected (401).'));
    assert.deepEqual(
      s.items().map((i) => i.kind),
      ['user', 'notice'],
    );
    const [n] = s.notices();
    assert.equal(n.level, 'error');
    assert.equal(n.title, 'The provider did not accept the API key.');
    assert.equal(n.text, 'The API key was rejected (401).');
    assert.deepEqual(n.actions, ['setApiKey', 'retry']);
  });

  it('Retry after 401, 401: the prompt stays shown once, in one error block that the answer clears', () => {
    const s = setup();
    const resumed: AgentEvent = { type: 'turn_start', turnId: 't', prompt: user('fix it'), resumed: true };
    s.run(...start('fix it'), ...failed('auth', 'bad key'));
    s.run(resumed, { type: 'message_start', role: 'assistant' }, ...failed('auth', 'bad key'));
    assert.deepEqual(
      s.items().map((i) => i.kind),
      ['user', 'notice'],
      'the second failure replaces the first block; no second prompt',
    );
    s.run(
      resumed,
      { type: 'message_start', role: 'assistant' },
      { type: 'message_delta', kind: 'text', delta: 'Done.' },
      { type: 'message_end', message: assistant('Done.') },
      { type: 'turn_end', turnId: 't', reason: 'done', messages: [] },
    );
    assert.deepEqual(
      s.items().map((i) => i.kind),
      ['user', 'assistant'],
    );
  });

  it('keeps the partial answer and says it broke off, without repeating the error', () => {
    const s = setup();
    s.run(
      ...start('go'),
      { type: 'message_delta', kind: 'text', delta: 'Half' },
      ...failed('network', 'The connection closed before the reply was complete.', 'Half'),
    );
    const a = s.items()[1];
    assert.equal(a.kind === 'assistant' && a.stopNote, 'The answer broke off.');
    assert.equal(s.notices().length, 1);
  });

  it('turns an unreachable server with five retries into a single network block naming Settings', () => {
    const s = setup();
    s.run(...start('hello'));
    for (let i = 1; i <= 5; i++) s.run(retry(i));
    assert.equal(s.notices().length, 1);
    assert.equal(s.notices()[0].attempt, 5);
    s.run(...failed('network', 'Connection to the provider failed: ECONNREFUSED'));
    assert.equal(s.notices().length, 1);
    const [n] = s.notices();
    assert.equal(n.level, 'error');
    assert.equal(n.retryAt, undefined);
    assert.equal(n.unreachable, true);
    assert.deepEqual(n.actions, ['retry', 'openSettings']);
  });

  it('clears earlier error blocks when the next answer works', () => {
    const s = setup();
    s.run(...start('one'), ...failed('auth', 'bad key'));
    s.run(...start('one'), ...failed('auth', 'bad key'));
    assert.equal(s.notices().length, 2);
    s.run(
      ...start('one'),
      { type: 'message_end', message: assistant('Done.') },
      { type: 'turn_end', turnId: 't', reason: 'done', messages: [] },
    );
    assert.equal(s.notices().length, 0);
    assert.deepEqual(
      s.items().map((i) => i.kind),
      ['user', 'user', 'user', 'assistant'],
    );
  });

  it('drops the retry countdown when the user stops during the wait', () => {
    const s = setup();
    s.run(
      ...start('x'),
      retry(1),
      { type: 'error', kind: 'aborted', message: 'aborted' },
      { type: 'turn_end', turnId: 't', reason: 'aborted', messages: [] },
    );
    assert.equal(s.notices().length, 0);
  });

  it('offers no Retry when no turn failed, and words unknown failures for people', () => {
    const storage = errorNotice('e1', 'storage', 'EACCES');
    assert.deepEqual(storage.actions, ['showLog']);
    const unknown = errorNotice('e2', 'unknown', 'boom', true);
    assert.equal(unknown.title, 'The model request failed.');
    assert.deepEqual(unknown.actions, ['retry', 'showLog']);
  });
});
