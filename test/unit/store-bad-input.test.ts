import { strict as assert } from 'node:assert';
import { HeadroomError, type ErrorKind } from '../../src/common/errors';
import type { Message } from '../../src/providers/types';
import type { HeadroomStore } from '../../src/store';
import { assistant, cleanup, open, tempRoot, texts, turnMessages, user } from '../fixtures/store/helpers';

function isError(kind: ErrorKind, pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof HeadroomError, `expected a HeadroomError, got ${String(err)}`);
    assert.equal(err.kind, kind);
    assert.match(err.message, pattern);
    return true;
  };
}

describe('store bad input', () => {
  let root: string;
  let store: HeadroomStore;
  let id: string;
  beforeEach(async () => {
    root = tempRoot();
    store = await open(root, { maxMessageBytes: 64 * 1024, maxResultBytes: 256 * 1024 });
    id = (await store.sessions.create('victim')).id;
    await store.sessions.appendTurn(id, turnMessages(0));
  });
  afterEach(async () => {
    await store.close();
    cleanup(root);
  });

  /** The session still holds exactly turn 0, in memory and after a reopen. */
  async function nothingLost(): Promise<void> {
    assert.deepEqual(texts((await store.sessions.transcript(id)).map((m) => m.message)), texts(turnMessages(0)));
    await store.close();
    store = await open(root);
    assert.deepEqual(texts((await store.sessions.transcript(id)).map((m) => m.message)), texts(turnMessages(0)));
    assert.equal(store.sessions.get(id).messageCount, 2);
  }

  it('rejects an oversized message with a clear error and keeps the whole turn out', async () => {
    const huge = user('x'.repeat(100 * 1024));
    await assert.rejects(
      store.sessions.appendTurn(id, [user('fine'), huge]),
      isError('invalid_message', /Message 1 .* over the 0\.1 MB limit.*offload/),
    );
    await nothingLost();
  });

  it('rejects content that is not a valid message or not JSON', async () => {
    const cyclic = user('loop') as Message & { self?: unknown };
    cyclic.self = cyclic;
    await assert.rejects(store.sessions.appendTurn(id, [cyclic]), isError('invalid_message', /cannot be stored as JSON/));
    const noRole = { content: [{ type: 'text', text: 'x' }], timestamp: 1 } as unknown as Message;
    await assert.rejects(store.sessions.appendTurn(id, [noRole]), isError('invalid_message', /not a valid message/));
    const badPart = { role: 'user', content: [{ type: 'text', text: 42 }], timestamp: 1 } as unknown as Message;
    await assert.rejects(store.sessions.appendTurn(id, [user('ok'), badPart]), isError('invalid_message', /Message 1 .*content/));
    await assert.rejects(
      store.sessions.appendTurn(id, 'hello' as unknown as Message[]),
      isError('invalid_message', /at least one message/),
    );
    await assert.rejects(store.sessions.appendTurn(id, []), isError('invalid_message', /at least one message/));
    await assert.rejects(store.sessions.appendTurn(id, [assistant('a')], { tokens: [-3] }), isError('invalid_message', /Token count -3/));
    await assert.rejects(store.sessions.saveSnapshot(id, { messages: [noRole] }), isError('invalid_message', /Snapshot message 0/));
    await assert.rejects(
      store.sessions.appendTurn(id, [user('x')], { contentHashes: [42 as unknown as string] }),
      isError('invalid_request', /could not be saved: messages\.0\.hash/),
    );
    await assert.rejects(store.sessions.saveSnapshot(id, { messages: [], tokens: 1.5 }), isError('invalid_request', /tokens/));
    await nothingLost();
  });

  it('rejects unknown ids with not_found', async () => {
    const unknown = 'ses_ffffffffffffffff';
    await assert.rejects(
      store.sessions.appendTurn(unknown, turnMessages(1)),
      isError('not_found', /Unknown session id "ses_ffffffffffffffff"/),
    );
    await assert.rejects(store.sessions.load(unknown), isError('not_found', /Unknown session/));
    await assert.rejects(store.sessions.rename(unknown, 'x'), isError('not_found', /Unknown session/));
    await assert.rejects(store.sessions.delete('../../etc/passwd'), isError('not_found', /Unknown session id/));
    await assert.rejects(store.sessions.getSnapshot(id, 'snap_0000000000000000'), isError('not_found', /no snapshot/));
    await assert.rejects(store.sessions.restoreSnapshot(id, 'snap_0000000000000000'), isError('not_found', /no snapshot/));
    await assert.rejects(store.sessions.unpin(id, 'pin_0000000000000000'), isError('not_found', /no pin/));
    await assert.rejects(store.sessions.undoLastCompaction(id), isError('not_found', /no compaction/));
    assert.throws(() => store.results.getMeta('res_0000000000000000'), isError('not_found', /Unknown stored result/));
    await assert.rejects(store.results.page('nope'), isError('not_found', /Unknown result id/));
    await assert.rejects(store.results.put(unknown, 'run_command', 'x'), isError('not_found', /Unknown session/));
    assert.equal(store.sessions.list().length, 1, 'no session was created for an unknown id');
    await nothingLost();
  });

  it('rejects oversized or non-text results, bad paging and bad names', async () => {
    await assert.rejects(
      store.results.put(id, 'run_command', 'y'.repeat(300 * 1024)),
      isError('invalid_request', /over the 0\.3 MB limit/),
    );
    await assert.rejects(store.results.put(id, 'run_command', 42 as unknown as string), isError('invalid_request', /must be text/));
    await assert.rejects(store.results.put(id, '', 'x'), isError('invalid_request', /name of the tool/));
    const r = await store.results.put(id, 'run_command', 'a\nb');
    await assert.rejects(store.results.page(r.refId, { offset: -1 }), isError('invalid_request', /offset/));
    await assert.rejects(store.results.page(r.refId, { limit: 0 }), isError('invalid_request', /limit/));
    await assert.rejects(store.sessions.rename(id, '   '), isError('invalid_request', /title/));
    await assert.rejects(store.calibration.set('m', Number.NaN, 1), isError('invalid_request', /factor/));
    await assert.rejects(store.sessions.pin(id, ''), isError('invalid_request', /text/));
    assert.deepEqual(
      store.results.list(id).map((m) => m.refId),
      [r.refId],
    );
    await nothingLost();
  });
});
