import assert from 'node:assert/strict';
import { createProvider } from '../../src/providers/create-provider';
import { complete } from '../../src/providers/provider';
import { serverAuthError } from '../../src/providers/server-auth';
import type { ProviderError } from '../../src/providers/types';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';

/** OpenAI's own 401 text, which some proxies in front of a local server pass on or copy. */
const OPENAI_401 = {
  error: {
    message: 'Incorrect API key provided: sk-*****9876. You can find your API key at https://platform.openai.com/account/api-keys.',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
};

/** A local server's 401 names that server and its next step, never a vendor's key page. */
describe("provider: a local server's refused key is worded for that server", () => {
  let server: FakeProvider;
  before(async () => {
    server = await startFakeProvider({ flavour: 'llamacpp' });
  });
  after(() => server.close());

  const ask = async () => {
    const provider = createProvider({
      provider: 'openai-compatible',
      baseUrl: server.openaiBaseUrl,
      apiKey: 'sk-wrong-9876',
      retry: { maxRetries: 0 },
    });
    const reply = await complete(provider, {
      model: 'fake-model',
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 0 }],
      tools: [],
      maxOutputTokens: 16,
    });
    assert.equal(reply.stopReason, 'error');
    return reply.error!;
  };

  it("OpenAI's wording from a server at a local address loses its platform.openai.com link", async () => {
    server.script.push({ fault: 'http', status: 401, body: OPENAI_401 });
    const error = await ask();
    assert.equal(error.kind, 'auth');
    const origin = new URL(server.openaiBaseUrl).origin;
    assert.equal(
      error.message,
      `401 The server at ${origin} did not accept the API key (it said: “Incorrect API key provided: sk-[redacted]”). ` +
        'Set the key that server expects with Headroom: Set API Key, or remove the stored key if the server takes none.',
    );
    assert.doesNotMatch(error.message, /platform\.openai\.com|the account/);
  });

  it("llama.cpp's own refusal is quoted in its words", async () => {
    server.script.push({ fault: 'auth' });
    const error = await ask();
    assert.match(error.message, /did not accept the API key \(it said: “Invalid API Key”\)/);
  });

  it("OpenAI's own API keeps its words; other errors are left alone", () => {
    const auth: ProviderError = { kind: 'auth', status: 401, message: `401 ${OPENAI_401.error.message}` };
    assert.deepEqual(serverAuthError(auth, 'https://api.openai.com/v1'), auth);
    const other: ProviderError = { kind: 'rate_limit', status: 429, message: 'slow down' };
    assert.deepEqual(serverAuthError(other, 'http://localhost:8080/v1'), other);
  });
});
