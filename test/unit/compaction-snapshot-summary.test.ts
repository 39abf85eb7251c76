import assert from 'node:assert/strict';
import { snapshotSummary, SUMMARY_UNAVAILABLE } from '../../src/agent/compaction';
import type { Provider } from '../../src/providers/provider';
import type { FakeProvider } from '../fixtures/fake-provider/index';
import { fakeSummarizer, session } from '../fixtures/compaction/factories';

describe('snapshots are saved with a short LLM summary', () => {
  let server: FakeProvider;
  let provider: Provider;
  before(async () => ({ server, provider } = await fakeSummarizer()));
  after(async () => server.close());
  beforeEach(() => {
    server.script.length = 0;
    server.requests.length = 0;
  });

  it('asks for a two-sentence summary of the newest messages within a small request', async () => {
    server.script.push({ text: 'Refactoring the parser; tests pass, the lexer is next.' });
    const view = session(200, 2000);
    const s = await snapshotSummary(view, { provider, model: 'fake-model', maxInputChars: 20_000 });
    assert.equal(s, 'Refactoring the parser; tests pass, the lexer is next.');
    const body = JSON.stringify(server.requests[0].body);
    assert.match(body, /at most two sentences/);
    assert.ok(body.includes('task 199'), 'the newest turn is quoted');
    assert.ok(!body.includes('task 0:'), 'the oldest is left out to keep it small');
    assert.ok(body.length < 40_000, `request of ${body.length} chars`);
  });

  it('says "(summary unavailable)" when the model fails or there is nothing to summarize', async () => {
    server.script.push({ fault: 'auth' });
    assert.equal(await snapshotSummary(session(3), { provider, model: 'fake-model' }), SUMMARY_UNAVAILABLE);
    assert.equal(SUMMARY_UNAVAILABLE, '(summary unavailable)');
    assert.equal(await snapshotSummary([], { provider, model: 'fake-model' }), SUMMARY_UNAVAILABLE);
  });
});
