import assert from 'node:assert/strict';
import { classifyProviderError, isContextOverflowMessage, parseRetryAfter, redactSecrets } from '../../src/providers/errors';

describe('provider: error classification', () => {
  it('recognizes the real overflow wording of each provider and common compatible servers', () => {
    for (const m of [
      'prompt is too long: 210000 tokens > 200000 maximum',
      'input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).", // vLLM
      'the request exceeds the available context size, try increasing it', // llama.cpp
      'Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.', // LM Studio
      'input length exceeds the context length', // Ollama
      'Requested tokens (9000) exceed context window of 8192', // llama-cpp-python
      "You passed 1015 input tokens and requested 10 output tokens. However, the model's context length is only 1024 tokens, resulting in a maximum input length of 1014 tokens. Please reduce the length of the input prompt.", // vLLM >= 0.16
      'The prompt (total length 25938) is too long to fit into the model (context length 4096).', // vLLM
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 1000 `max_new_tokens`', // TGI
      'Input validation error: `inputs` must have less than 4096 tokens. Given: 5210', // TGI
      'request (70494 tokens) exceeds the available context size (67584 tokens)', // llama.cpp
      'Context size has been exceeded.', // LM Studio (MLX)
      'the input length exceeds the context length', // Ollama
    ]) {
      assert.ok(isContextOverflowMessage(m), m);
    }
    for (const m of [
      'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.',
      'Overloaded',
      'invalid x-api-key',
      'Input validation error: `temperature` must be strictly positive', // TGI, not an overflow
      'max_tokens must be at least 1, got -186.', // vLLM, not an overflow
    ]) {
      assert.ok(!isContextOverflowMessage(m), m);
    }
  });

  it('maps SDK-shaped errors by status, type and code', () => {
    const headers = new Headers({ 'retry-after': '3' });
    assert.deepEqual(
      classifyProviderError({ status: 429, headers, error: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } }),
      { kind: 'rate_limit', message: '429 slow down', status: 429, retryAfterMs: 3000 },
    );
    assert.equal(classifyProviderError({ status: 429, error: { message: 'exceeded quota', code: 'insufficient_quota' } }).kind, 'auth');
    assert.equal(
      classifyProviderError({ status: 529, error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }).kind,
      'overloaded',
    );
    assert.equal(classifyProviderError({ status: 400, error: { message: 'x', code: 'context_length_exceeded' } }).kind, 'context_overflow');
    assert.equal(
      classifyProviderError({
        status: 413,
        error: { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } },
      }).kind,
      'context_overflow',
    );
    assert.equal(classifyProviderError({ status: 403, error: {} }).kind, 'auth');
    assert.equal(classifyProviderError({ status: 404, error: { message: 'model not found' } }).kind, 'invalid_request');
    assert.equal(classifyProviderError({ status: 502, error: {} }).kind, 'overloaded');
    assert.equal(classifyProviderError(new TypeError('fetch failed')).kind, 'network');
    assert.equal(classifyProviderError(Object.assign(new Error('This operation was aborted'), { name: 'AbortError' })).kind, 'aborted');
    assert.equal(classifyProviderError(new SyntaxError('Unexpected end of JSON input')).kind, 'network');
    assert.equal(classifyProviderError('something odd').kind, 'unknown');
  });

  it("classifies each server's overflow body as the SDK hands it over, whatever its shape or status", () => {
    // llama.cpp sends its overflow with status 500 on some versions: the wording must win over the status.
    assert.equal(
      classifyProviderError({
        status: 500,
        error: {
          code: 500,
          message: 'the request exceeds the available context size. try increasing the context size or enable context shift',
          type: 'exceed_context_size_error',
        },
      }).kind,
      'context_overflow',
    );
    assert.equal(
      classifyProviderError({ status: 400, error: { message: 'overflow', type: 'exceed_context_size_error' } }).kind,
      'context_overflow',
    );
    // TGI's 422 after normalizeErrorBody (see provider-overflow-wording.test.ts for the whole path).
    assert.equal(
      classifyProviderError({
        status: 422,
        error: {
          message:
            'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 3474 `inputs` tokens and 60 `max_new_tokens`',
          type: 'validation',
        },
      }).kind,
      'context_overflow',
    );
    assert.equal(
      classifyProviderError({
        status: 422,
        error: { message: 'Input validation error: `top_p` must be > 0.0 and < 1.0', type: 'validation' },
      }).kind,
      'invalid_request',
    );
  });

  it('parses retry-after in seconds, milliseconds and HTTP dates', () => {
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '2.5' })), 2500);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' })), 150);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), now), 10_000);
    assert.equal(parseRetryAfter(new Headers({})), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });

  it('never lets a key into a message', () => {
    const key = 'my-custom-gateway-token-42';
    assert.equal(redactSecrets(`bad token ${key}`, [key]), 'bad token [redacted]');
    assert.equal(redactSecrets('Incorrect API key provided: sk-pro*****1234.'), 'Incorrect API key provided: sk-[redacted].');
    const e = classifyProviderError({ status: 401, error: { message: `key ${key} rejected` } }, [key]);
    assert.ok(!e.message.includes(key));
  });
});
