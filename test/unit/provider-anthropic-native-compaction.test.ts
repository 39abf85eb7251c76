import assert from 'node:assert/strict';
import { compactionUsage } from '../../src/providers/anthropic-compaction';
import { AnthropicProvider } from '../../src/providers/anthropic';
import type { Message } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';
import { request, run, user } from '../fixtures/fake-provider/factories';

/** The Anthropic adapter asking the server to compact (`compact_20260112`, paused) and reading its summary and cost. */

const words = (label: string, n: number) => `${label} ${'lorem ipsum dolor sit amet '.repeat(n / 5)}`;

/** A conversation long enough for the API's smallest compaction trigger (50,000 tokens). */
function longConversation(): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 12; i++) {
    out.push(user(words(`question ${i}: keep the port at 8080`, 5000)));
    out.push({
      role: 'assistant',
      content: [{ type: 'text', text: `answer ${i}` }],
      provider: 'anthropic',
      model: 'claude-sonnet-5-5',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'end',
      timestamp: 0,
    });
  }
  out.push(user('continue'));
  return out;
}

describe('provider: Anthropic native compaction', () => {
  let server: FakeProvider;
  let provider: AnthropicProvider;
  before(async () => {
    server = await startFakeProvider({ lineup: TODAYS_LINEUP });
    provider = new AnthropicProvider({ apiKey: 'sk-ant-test-key-123456', baseUrl: server.baseUrl, retry: { maxRetries: 0 } });
  });
  after(() => server.close());

  it('asks for a paused compaction with the beta and returns the summary with the compaction iteration as its cost', async () => {
    const before = server.script.length;
    const { message } = await run(
      provider,
      request(longConversation(), {
        model: 'claude-sonnet-5-5',
        nativeCompaction: { triggerTokens: 1000, instructions: 'Quote every user instruction.' },
      }),
    );
    const rec = server.requests.at(-1)!;
    assert.match(String(rec.headers['anthropic-beta']), /compact-2026-01-12/);
    const edit = (rec.body.context_management as { edits: Array<Record<string, unknown>> }).edits[0];
    assert.deepEqual(edit, {
      type: 'compact_20260112',
      trigger: { type: 'input_tokens', value: 50_000 },
      pause_after_compaction: true,
      instructions: 'Quote every user instruction.',
    });
    assert.equal(message.stopReason, 'end');
    assert.deepEqual(message.content, [], 'nothing is sampled after a paused compaction');
    assert.ok(message.compaction, 'the compaction block is read');
    assert.match(message.compaction.summary, /Summary written as instructed/);
    assert.match(message.compaction.summary, /keep the port at 8080/);
    assert.ok(rec.compaction && rec.compaction.input + rec.compaction.cacheRead + rec.compaction.cacheWrite > 50_000);
    assert.deepEqual(message.compaction.usage, rec.compaction, 'the cost is the compaction iteration, reported apart');
    assert.equal(message.usage.input, 0, 'the top-level usage leaves the compaction out');
    assert.equal(server.script.length, before, 'no scripted answer is used');
  });

  it('has no compaction when the prompt is under the trigger (the model answers instead)', async () => {
    server.script.push({ text: 'plain answer' });
    const { message } = await run(
      provider,
      request([user('short')], { model: 'claude-sonnet-5-5', nativeCompaction: { triggerTokens: 50_000 } }),
    );
    assert.equal(message.compaction, undefined);
    assert.deepEqual(message.content, [{ type: 'text', text: 'plain answer' }]);
  });

  it('fails with the 400 of a model that does not declare compaction', async () => {
    const { message } = await run(
      provider,
      request(longConversation(), { model: 'claude-petite-5', nativeCompaction: { triggerTokens: 50_000 } }),
    );
    assert.equal(message.stopReason, 'error');
    assert.equal(message.compaction, undefined);
    assert.match(message.error?.message ?? '', /compact_20260112 is not supported/);
  });

  it('reads only well-formed compaction iterations (hostile usage)', () => {
    assert.equal(compactionUsage(undefined), undefined);
    assert.equal(compactionUsage('x'), undefined);
    assert.equal(compactionUsage([{ type: 'message', input_tokens: 5 }]), undefined);
    assert.deepEqual(
      compactionUsage([
        null,
        3,
        { type: 'compaction', input_tokens: -4, output_tokens: '12', cache_read_input_tokens: 1e308, cache_creation_input_tokens: 'x' },
      ]),
      { input: 0, output: 12, cacheRead: 100_000_000, cacheWrite: 0 },
    );
  });
});
