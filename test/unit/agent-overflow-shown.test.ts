import assert from 'node:assert/strict';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { createHarness, type Harness } from '../fixtures/agent/harness';
import { fillTo } from '../fixtures/agent/fill';

describe('agent loop: a provider overflow is shown as a compaction, never as a broken answer', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  for (const protocol of ['anthropic', 'openai'] as const) {
    it(`${protocol}: the refused request leaves no "broke off" note, and the compaction says why`, async () => {
      h = await createHarness({ protocol, window: 32_000 });
      h.server.script.push({ text: 'ready' });
      await h.turn('hello');
      await fillTo(h, 0.5);
      const presenter = new ChatPresenter(
        () => {},
        () => 0,
      );
      // The provider counts more than we do: it refuses the first request as too long.
      h.server.script.push({ fault: 'overflow' }, { text: 'Answer after the retry.' });
      const r = await h.turn('go on', undefined, (e) => presenter.handle(e));
      assert.equal(r.reason, 'done');
      const items = presenter.transcript.items;
      const texts = JSON.stringify(items);
      assert.doesNotMatch(texts, /broke off/);
      assert.doesNotMatch(texts, /too long: \d+ tokens|maximum context length/, 'the raw provider 400 is not shown');
      const compaction = items.find((i) => i.kind === 'compaction');
      assert.ok(compaction && compaction.kind === 'compaction');
      assert.match(compaction.text, /^Compacted after the provider said the request was too long/);
      const answers = items.filter((i) => i.kind === 'assistant');
      assert.equal(answers.length, 1, 'one answer bubble, the retry');
      assert.ok(answers[0].kind === 'assistant' && answers[0].text === 'Answer after the retry.');
    });
  }
});
