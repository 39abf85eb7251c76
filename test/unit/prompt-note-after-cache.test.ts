import assert from 'node:assert/strict';
import { toAnthropicParams } from '../../src/providers/anthropic-convert';
import { toLmMessages } from '../../src/providers/lm-chat-convert';
import { toOpenAIParams } from '../../src/providers/openai-convert';
import { toResponsesParams } from '../../src/providers/openai-responses-convert';
import { cacheReadShare, runHighUsage } from '../fixtures/agent/high-usage';
import { request, toolResult, user } from '../fixtures/fake-provider/factories';

const NOTE = '[Context: 91 % used. compact_context frees space.]';

describe('prompt: the per-request context note never breaks the prompt cache', function () {
  this.timeout(120_000);

  it('keeps cache reads high while the note changes from 85 % to 95 % (production prompt path, prefix-cache simulator)', async () => {
    const run = await runHighUsage({ window: 32_000, fromRatio: 0.85, toRatio: 0.95 });
    const band = run.requests.filter((r) => r.ratio >= 0.85);
    assert.ok(band.length >= 8, `requests in the band: ${band.length}`);
    assert.ok(
      band.every((r) => r.note),
      'every request in the band carries the note',
    );
    const { share } = cacheReadShare(band);
    assert.ok(share >= 0.85, `cache-read share ${share.toFixed(3)}`);
  });

  it('Anthropic: the note is the last block of the final user turn, after the tail breakpoint', () => {
    for (const messages of [[user('hi')], [user('read it'), toolResult('c1', 'read_file', 'contents')]]) {
      const body = toAnthropicParams(
        request(messages, { cacheTail: true, trailingNote: NOTE, system: [{ id: 'base', text: 'S', cacheBreakpoint: true }] }),
      );
      assert.doesNotMatch(JSON.stringify(body.system), /Context:/);
      const last = body.messages[body.messages.length - 1];
      const blocks = last.content as Array<{ type: string; text?: string; cache_control?: unknown }>;
      assert.equal(last.role, 'user');
      assert.deepEqual(blocks[blocks.length - 1], { type: 'text', text: NOTE });
      assert.ok(blocks[blocks.length - 2].cache_control, 'the breakpoint is on the block before the note');
    }
  });

  it('OpenAI: the note comes after the whole stable prefix', () => {
    const body = toOpenAIParams(request([user('read it'), toolResult('c1', 'read_file', 'contents')], { trailingNote: NOTE }), 'openai');
    assert.deepEqual(body.messages[body.messages.length - 1], { role: 'user', content: NOTE });
    assert.doesNotMatch(JSON.stringify(body.messages.slice(0, -1)), /Context:/);
  });

  it('OpenAI Responses and the VS Code LM API: the note is the last input', () => {
    const messages = [user('read it'), toolResult('c1', 'read_file', 'contents')];
    const body = toResponsesParams(request(messages, { trailingNote: NOTE }), false);
    const input = body.input as Array<{ role?: string; content?: unknown }>;
    assert.equal(input[input.length - 1].role, 'user');
    assert.match(JSON.stringify(input[input.length - 1].content), /Context: 91 % used/);
    assert.doesNotMatch(JSON.stringify(input.slice(0, -1)), /Context:/);
    const lm = toLmMessages('S', messages, NOTE);
    const last = lm[lm.length - 1];
    assert.deepEqual(last.parts[last.parts.length - 1], { kind: 'text', text: NOTE });
  });
});
