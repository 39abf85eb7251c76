import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { OpenAIProvider } from '../../src/providers/openai';
import type { Provider } from '../../src/providers/provider';
import type { StreamEvent } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';

describe('provider: abort through one AbortSignal', () => {
  let server: FakeProvider;
  let providers: Provider[];
  before(async () => {
    server = await startFakeProvider();
    providers = [
      new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl }),
      new OpenAIProvider({ provider: 'openai', apiKey: 'sk-test', baseUrl: server.openaiBaseUrl }),
    ];
  });
  after(() => server.close());

  it('aborting mid-stream ends with stopReason aborted and keeps the text so far', async () => {
    for (const p of providers) {
      server.script.push({ fault: 'hang', partialText: 'The beginning of a long answer' });
      const controller = new AbortController();
      const events: StreamEvent[] = [];
      let seen = '';
      for await (const e of p.stream(request([user('long please')]), controller.signal)) {
        events.push(e);
        if (e.type === 'text_delta') {
          seen += e.delta;
          if (seen === 'The beginning of a long answer') controller.abort();
        }
      }
      const done = events.at(-1)!;
      assert.equal(done.type, 'done');
      if (done.type !== 'done') return;
      assert.equal(done.message.stopReason, 'aborted', p.id);
      assert.equal(done.message.error?.kind, 'aborted');
      assert.equal(done.message.partial, true);
      assert.deepEqual(done.message.content, [{ type: 'text', text: 'The beginning of a long answer' }]);
      assert.equal(events.filter((e) => e.type === 'done').length, 1);
    }
  });

  it('an already aborted signal ends at once without a request', async () => {
    const before = server.requests.length;
    for (const p of providers) {
      const { events, message } = await run(p, request([user('x')]), AbortSignal.abort());
      assert.deepEqual(
        events.map((e) => e.type),
        ['start', 'done'],
      );
      assert.equal(message.stopReason, 'aborted');
    }
    assert.equal(server.requests.length, before);
  });
});
