import * as assert from 'node:assert/strict';
import {
  answerRequest,
  parseHostMessage,
  parseWebviewMessage,
  RequestClient,
  type ReplyMessage,
  type RequestHandlers,
  type RequestMessage,
} from '../../src/protocol/messages';

const history = { sessions: [], timeline: [] };

/** Handlers that answer from fixed data and record what they were asked. */
function handlers(asked: unknown[]): RequestHandlers {
  return {
    'session/list': () => Promise.resolve({ history }),
    'transcript/older': (input) => (
      asked.push(input),
      Promise.resolve({ items: [{ kind: 'user', id: 'm1', text: 'hi' }], hasOlder: false })
    ),
    'config/test': () => Promise.resolve({ ok: true, message: 'fake-model answered' }),
    'mention/search': (input) => (asked.push(input), Promise.resolve({ options: [{ kind: 'file', path: `${input.query}.ts` }] })),
  };
}

describe('protocol: requests the webview awaits', () => {
  it('resolves each request with the reply of its id, whatever order the replies come in', async () => {
    const sent: RequestMessage[] = [];
    const client = new RequestClient((m) => sent.push(m));
    const older = client.request('transcript/older', { beforeId: 'm9' });
    const search = client.request('mention/search', { query: 'app' });
    assert.equal(sent.length, 2);
    assert.notEqual(sent[0].id, sent[1].id);
    for (const m of sent) assert.ok(parseWebviewMessage(m).ok, 'each request is a valid webview message');
    const replies = await Promise.all([...sent].reverse().map((m) => answerRequest(handlers([]), m, () => assert.fail('no error'))));
    for (const r of replies) {
      assert.ok(parseHostMessage(r).ok, 'each reply is a valid host message');
      client.settle(r);
    }
    assert.deepEqual(await search, { options: [{ kind: 'file', path: 'app.ts' }] });
    assert.equal((await older).items[0].id, 'm1');
  });

  it('rejects with the host’s error, or when the reply does not match the method’s output; ignores a reply to nothing asked', async () => {
    const client = new RequestClient(() => {});
    const failing = client.request('config/test', {});
    const malformed = client.request('session/list', {});
    client.settle({ type: 'reply', id: 99, result: { history } });
    client.settle({ type: 'reply', id: 0, error: 'The panel is gone.' });
    client.settle({ type: 'reply', id: 1, result: { history: { sessions: 'nope' } } });
    await assert.rejects(failing, /The panel is gone/);
    await assert.rejects(malformed, /Invalid session\/list reply/);
  });

  it('the host checks the input before the handler runs and the output before it is sent', async () => {
    const asked: unknown[] = [];
    const errors: string[] = [];
    const onError = (e: unknown, method: string) => void errors.push(`${method}: ${String(e)}`);
    const bad: ReplyMessage = await answerRequest(
      handlers(asked),
      { type: 'request', id: 3, method: 'mention/search', params: { query: 'x'.repeat(501) } },
      onError,
    );
    assert.equal(bad.id, 3);
    assert.match(bad.error ?? '', /Invalid mention\/search request/);
    assert.deepEqual(asked, [], 'the handler never ran');
    const lying: RequestHandlers = { ...handlers(asked), 'config/test': () => Promise.resolve({ ok: 'yes' } as never) };
    const out = await answerRequest(lying, { type: 'request', id: 4, method: 'config/test', params: {} }, onError);
    assert.match(out.error ?? '', /Invalid config\/test reply/);
    assert.equal(out.result, undefined);
    const thrown: RequestHandlers = { ...handlers(asked), 'session/list': () => Promise.reject(new Error('store closed')) };
    assert.equal(
      (await answerRequest(thrown, { type: 'request', id: 5, method: 'session/list', params: {} }, onError)).error,
      'store closed',
    );
    assert.equal(errors.length, 3);
    assert.ok(!parseWebviewMessage({ type: 'request', id: 6, method: 'session/delete', params: {} }).ok, 'only the table’s methods');
  });
});
