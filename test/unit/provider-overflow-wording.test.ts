import assert from 'node:assert/strict';
import { normalizeErrorBody } from '../../src/providers/error-body';
import { isContextOverflowMessage } from '../../src/providers/errors';
import { OVERFLOW_WORDINGS } from '../../src/providers/overflow-wordings';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { OpenAIProvider } from '../../src/providers/openai';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';
import type { OverflowServer } from '../fixtures/fake-provider/server-wordings';

/**
 * Every server's context-overflow response, sent over HTTP in its real shape and
 * read by the real SDK adapters, ends as `context_overflow` (so Headroom compacts and retries) with the
 * server's own words in the message.
 */
describe('provider: overflow wording of every server through the real adapters', () => {
  let server: FakeProvider;
  before(async () => {
    server = await startFakeProvider();
  });
  after(() => server.close());

  const compatible: Array<[OverflowServer, RegExp]> = [
    ['openai', /maximum context length is 128000/],
    ['vllm', /maximum context length is 4096 tokens/],
    ['vllm-new', /context length is only 1024 tokens/],
    ['tgi', /`inputs` tokens \+ `max_new_tokens` must be <= 4096/],
    ['tgi-inputs', /must have less than 4096 tokens/],
    ['llamacpp', /exceeds the available context size/],
    ['llamacpp-500', /exceeds the available context size/],
    ['ollama', /input length exceeds the context length/],
    ['lmstudio', /context length of only 7866 tokens/],
    ['lmstudio-mlx', /Context size has been exceeded/],
    ['sglang', /is longer than the model's context length/],
    ['gemini', /exceeds the maximum number of tokens allowed/],
    ['fastapi-detail', /maximum context length is 8192/],
    ['fastapi-list', /is longer than the model's context length/],
  ];

  for (const [name, words] of compatible) {
    it(`${name} through the OpenAI-compatible adapter`, async () => {
      const provider = new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } });
      server.script.push({ fault: 'server_overflow', server: name });
      const { message } = await run(provider, request([user('hi')]));
      assert.equal(message.stopReason, 'error');
      assert.equal(message.error?.kind, 'context_overflow', message.error?.message);
      assert.match(message.error.message, words);
      assert.doesNotMatch(message.error.message, /no body/);
    });
  }

  it("vLLM's error streamed as a top-level chunk ends the reply with that error, not silently", async () => {
    const provider = new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } });
    server.script.push({
      fault: 'vllm_stream_error',
      message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
    });
    const { message } = await run(provider, request([user('hi')]));
    assert.equal(message.stopReason, 'error');
    assert.equal(message.error?.kind, 'context_overflow');
    assert.match(message.error?.message ?? '', /maximum context length is 4096/);
  });

  it('anthropic through the Anthropic adapter', async () => {
    const provider = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.baseUrl, retry: { maxRetries: 0 } });
    server.script.push({ fault: 'server_overflow', server: 'anthropic' });
    const { message } = await run(provider, request([user('hi')]));
    assert.equal(message.error?.kind, 'context_overflow');
    assert.match(message.error.message, /prompt is too long/);
  });

  it('a top-level error body that is not an overflow keeps its words and its kind', async () => {
    const provider = new OpenAIProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } });
    server.script.push({
      fault: 'http',
      status: 400,
      body: { object: 'error', message: 'max_tokens must be at least 1, got -186.', type: 'BadRequestError', param: null, code: 400 },
    });
    const { message } = await run(provider, request([user('hi')]));
    assert.equal(message.error?.kind, 'invalid_request');
    assert.match(message.error.message, /^400 max_tokens must be at least 1/);
  });

  it("normalizeErrorBody brings each shape to OpenAI's and leaves OpenAI's alone", () => {
    const openai = { error: { message: 'm', type: 't', code: 'c' } };
    assert.equal(normalizeErrorBody(openai), openai);
    assert.deepEqual(normalizeErrorBody({ object: 'error', message: 'm', type: 'BadRequestError', param: null, code: 400 }), {
      error: { message: 'm', type: 'BadRequestError' },
    });
    assert.deepEqual(normalizeErrorBody({ error: 'm', error_type: 'validation' }), { error: { message: 'm', type: 'validation' } });
    assert.deepEqual(normalizeErrorBody({ detail: 'm' }), { error: { message: 'm' } });
    assert.deepEqual(normalizeErrorBody('m'), { error: { message: 'm' } });
    assert.equal(normalizeErrorBody(undefined), undefined);
    assert.deepEqual(normalizeErrorBody({ unrelated: 1 }), { unrelated: 1 });
    assert.deepEqual(normalizeErrorBody([1]), [1]);
    assert.deepEqual(normalizeErrorBody([{ error: { code: 400, message: 'm', status: 'INVALID_ARGUMENT' } }]), {
      error: { code: 400, message: 'm', status: 'INVALID_ARGUMENT' },
    });
    assert.deepEqual(normalizeErrorBody({ detail: { msg: 'm' } }), { error: { message: 'm' } });
    assert.deepEqual(normalizeErrorBody({ detail: [{ msg: 'a' }, { msg: 'b' }] }), { error: { message: 'a; b' } });
  });

  it('the wording table: every row has its real text and a source, and its pattern recognises it', () => {
    for (const w of OVERFLOW_WORDINGS) {
      assert.match(w.example, w.pattern, w.server);
      assert.ok(isContextOverflowMessage(w.example), w.server);
      assert.match(w.source, /^https:\/\//, w.server);
    }
    for (const rate of [
      'Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.',
      'Too many tokens, please wait before trying again.',
      'This request would exceed the rate limit for your organization of 40,000 input tokens per minute.',
    ])
      assert.equal(isContextOverflowMessage(rate), false, rate);
  });
});
