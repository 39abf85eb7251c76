/**
 * A key must not reach a message in any encoding. Before, it was redacted only verbatim: a proxy that
 * echoed the `Authorization` header base64-encoded put the key in the error banner. The check here
 * decodes every base64, hex and URL-encoded run of the message, independently of how redaction works.
 */
import assert from 'node:assert/strict';
import { OpenAIProvider } from '../../src/providers/openai';
import { redactSecrets } from '../../src/providers/redact';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';

const KEY = 'gw-live-7d1c0a9e4b2f4c88a1e3b6d5f0c2a9e7';
/** Any 16 characters of the key in a row, found after decoding, is a leak. */
const MIDDLE = KEY.slice(8, 24);

function leaks(text: string): string[] {
  const found: string[] = [];
  if (text.includes(MIDDLE)) found.push('verbatim');
  for (const run of text.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []) {
    for (let cut = 0; cut < 4; cut++) {
      const decoded = Buffer.from(run.slice(cut).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
      if (decoded.includes(MIDDLE)) found.push(`base64 ${run}`);
    }
  }
  for (const run of text.match(/[0-9a-fA-F]{32,}/g) ?? []) {
    for (let cut = 0; cut < 2; cut++) if (Buffer.from(run.slice(cut), 'hex').toString('latin1').includes(MIDDLE)) found.push(`hex ${run}`);
  }
  try {
    if (decodeURIComponent(text).includes(MIDDLE) && !text.includes(MIDDLE)) found.push('url-encoded');
  } catch {
    // not URL-encoded
  }
  return found;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const ECHOES = [
  `Authorization: Basic ${b64(`user:${KEY}`)}`,
  `Authorization: Bearer ${b64(KEY)}`,
  `token=${b64(`ab${KEY}`)} (url-safe: ${b64(`a${KEY}`).replace(/\+/g, '-').replace(/\//g, '_')})`,
  `key=${encodeURIComponent(`${KEY}/`)}`,
  `hex ${Buffer.from(KEY).toString('hex')}`,
  `json "${JSON.stringify(KEY).slice(1, -1)}"`,
];

describe('security: the key is redacted in every encoding a server may echo', () => {
  it('redactSecrets leaves no decodable trace of the key', () => {
    for (const echo of ECHOES) assert.deepEqual(leaks(redactSecrets(echo, [KEY])), [], echo);
    assert.equal(redactSecrets('nothing secret here: aGVsbG8gd29ybGQ=', [KEY]), 'nothing secret here: aGVsbG8gd29ybGQ=');
  });

  describe('through the real adapter', () => {
    let server: FakeProvider;
    before(async () => {
      server = await startFakeProvider();
    });
    after(() => server.close());

    it('an error body echoing the key base64-encoded reaches the message without it', async () => {
      const provider = new OpenAIProvider({
        provider: 'openai-compatible',
        apiKey: KEY,
        baseUrl: server.openaiBaseUrl,
        retry: { maxRetries: 0 },
      });
      server.script.push({ fault: 'http', status: 401, body: { error: { message: `Invalid credentials. ${ECHOES.join('; ')}` } } });
      const { message } = await run(provider, request([user('hi')]));
      assert.equal(message.error?.kind, 'auth');
      assert.deepEqual(leaks(message.error?.message ?? ''), []);
      assert.match(message.error?.message ?? '', /Invalid credentials/);
    });
  });
});
