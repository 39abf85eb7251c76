import assert from 'node:assert/strict';
import { createProvider } from '../../src/providers/create-provider';
import {
  decisionsKeyFor,
  loadKeyDecisions,
  resolveApiKey,
  secretKeyFor,
  storeApiKey,
  type SecretStore,
} from '../../src/providers/credentials';
import { decideKeyUse, originOf, requestOrigin, type KeyOriginDecisions } from '../../src/providers/key-origin';
import { keyForTarget, releaseApiKey } from '../../src/providers/key-release';
import { restrictedModeRefusal } from '../../src/protocol/restricted-mode';
import { startFakeProvider } from '../fixtures/fake-provider';
import { request, run, user } from '../fixtures/fake-provider/factories';

/**
 * A repository's `.vscode/settings.json` pointed `headroom.baseUrl` elsewhere and
 * the stored key went with it. Now a key is bound to the provider and the origin it was entered for;
 * any other origin needs the user's yes (asked once, remembered per origin and key).
 */

function memoryStore(initial: Record<string, string> = {}): SecretStore & { data: Map<string, string> } {
  const data = new Map(Object.entries(initial));
  return {
    data,
    get: (k) => Promise.resolve(data.get(k)),
    store: (k, v) => Promise.resolve(void data.set(k, v)),
    delete: (k) => Promise.resolve(void data.delete(k)),
  };
}

const none: KeyOriginDecisions = { approved: [], denied: [] };

describe('security: an API key goes only to the origin it was entered for', () => {
  it('origins: scheme, host and port count; paths and case do not', () => {
    assert.equal(originOf('https://API.anthropic.com/v1/'), 'https://api.anthropic.com');
    assert.equal(originOf('http://localhost:11434/v1'), 'http://localhost:11434');
    assert.equal(originOf('file:///etc/passwd'), undefined);
    assert.equal(originOf('not a url'), undefined);
    assert.deepEqual(requestOrigin('anthropic', undefined), { origin: 'https://api.anthropic.com' });
    assert.deepEqual(
      requestOrigin('openai-compatible', ''),
      { origin: 'https://api.openai.com' },
      'the SDK default when no base URL is set',
    );
  });

  it('the decision: send to the bound origin, ask for any other, refuse what the user declined or a broken URL', () => {
    const bound = 'https://api.anthropic.com';
    const use = (baseUrl: string | undefined, decisions = none) =>
      decideKeyUse({ provider: 'anthropic', baseUrl, boundOrigin: bound, decisions });
    assert.deepEqual(use(undefined), { action: 'send', origin: bound });
    assert.deepEqual(use('https://api.anthropic.com/v1'), { action: 'send', origin: bound });
    assert.deepEqual(use('https://evil.example/v1'), { action: 'ask', origin: 'https://evil.example' });
    assert.deepEqual(
      use('http://api.anthropic.com'),
      { action: 'ask', origin: 'http://api.anthropic.com' },
      'plain http is another origin',
    );
    assert.deepEqual(use('https://api.anthropic.com:8443'), { action: 'ask', origin: 'https://api.anthropic.com:8443' });
    assert.deepEqual(use('https://evil.example', { approved: ['https://evil.example'], denied: [] }), {
      action: 'send',
      origin: 'https://evil.example',
    });
    assert.equal(use('https://evil.example', { approved: [], denied: ['https://evil.example'] }).action, 'refuse');
    assert.equal(use('javascript:alert(1)').action, 'refuse');
    assert.deepEqual(
      decideKeyUse({ provider: 'anthropic', baseUrl: undefined, boundOrigin: undefined, decisions: none }),
      { action: 'ask', origin: bound },
      'a key of unknown origin asks even for the default',
    );
  });

  it('keys remember where they were entered; env keys belong to the provider default; old bare keys too', async () => {
    const store = memoryStore({
      [secretKeyFor('anthropic')]: 'sk-ant-legacy-1234',
      [secretKeyFor('openai-compatible')]: 'legacy-compat-key',
    });
    assert.equal((await resolveApiKey('anthropic', store, {}))?.boundOrigin, 'https://api.anthropic.com');
    assert.equal(
      (await resolveApiKey('openai-compatible', store, {}))?.boundOrigin,
      undefined,
      'nobody knows where an old compatible key belongs',
    );
    assert.equal((await resolveApiKey('openai', store, { OPENAI_API_KEY: 'sk-env-123456' }))?.boundOrigin, 'https://api.openai.com');
    await storeApiKey('openai-compatible', store, 'vllm-key-123456', 'http://gpu-box:8000/v1');
    assert.equal((await resolveApiKey('openai-compatible', store, {}))?.boundOrigin, 'http://gpu-box:8000');
  });

  it('a repository redirecting the base URL: the user is asked once, and "no" keeps the key off the wire', async () => {
    const server = await startFakeProvider();
    try {
      const store = memoryStore();
      const key = 'sk-ant-api03-real-user-key-000000';
      await storeApiKey('anthropic', store, key); // entered for api.anthropic.com
      const asked: string[] = [];
      const release = (answer: boolean | undefined) =>
        releaseApiKey({
          provider: 'anthropic',
          baseUrl: server.baseUrl,
          secrets: store,
          env: {},
          ask: (label, origin) => (asked.push(`${label} → ${origin}`), Promise.resolve(answer)),
        });

      const declined = await release(false);
      assert.deepEqual(asked, [`Anthropic → ${originOf(server.baseUrl)}`]);
      assert.equal(declined.apiKey, undefined);
      assert.match(declined.withheld!, /did not send your Anthropic API key: you chose not to send it to http:\/\/127\.0\.0\.1:\d+/);
      // What the session does with the answer: the request carries no key, and says why.
      const provider = createProvider({
        provider: 'anthropic',
        baseUrl: server.baseUrl,
        apiKey: declined.apiKey,
        missingKeyMessage: declined.withheld,
      });
      const { message } = await run(provider, request([user('hi')]));
      assert.equal(message.error?.kind, 'auth');
      assert.match(message.error.message, /did not send your Anthropic API key/);
      assert.ok(
        server.requests.every((r) => !JSON.stringify(r.headers).includes(key)),
        'the key never reached the server',
      );

      // Remembered: not asked again, still refused.
      const again = await release(true);
      assert.equal(asked.length, 1);
      assert.equal(again.apiKey, undefined);
    } finally {
      await server.close();
    }
  });

  it('"yes" is remembered for that origin and that key only; a dismissed question asks again', async () => {
    const store = memoryStore();
    await storeApiKey('openai', store, 'sk-proj-first-key-000000');
    let asks = 0;
    const release = (baseUrl: string, answer: boolean | undefined) =>
      releaseApiKey({ provider: 'openai', baseUrl, secrets: store, env: {}, ask: () => (asks++, Promise.resolve(answer)) });
    assert.equal((await release('https://proxy.example/v1', undefined)).apiKey, undefined);
    assert.equal(asks, 1);
    assert.equal((await release('https://proxy.example/v1', true)).apiKey, 'sk-proj-first-key-000000');
    assert.equal(asks, 2);
    assert.equal((await release('https://proxy.example/other', false)).apiKey, 'sk-proj-first-key-000000', 'same origin: no question');
    assert.equal(asks, 2);
    assert.equal((await release('https://another.example', true)).apiKey, 'sk-proj-first-key-000000');
    assert.equal(asks, 3, 'each new origin asks');
    assert.ok(!store.data.get(decisionsKeyFor('openai'))!.includes('sk-proj'), 'answers name a hash of the key, never the key');
    await storeApiKey('openai', store, 'sk-proj-second-key-00000');
    assert.deepEqual(
      await loadKeyDecisions('openai', store, 'sk-proj-second-key-00000'),
      { approved: [], denied: [] },
      'a new key starts with no answers',
    );
  });

  it('an environment key asks before it leaves for a non-default origin', async () => {
    let asked = 0;
    const r = await releaseApiKey({
      provider: 'anthropic',
      baseUrl: 'https://collector.example',
      secrets: memoryStore(),
      env: { ANTHROPIC_API_KEY: 'sk-ant-env-0000000' },
      ask: () => (asked++, Promise.resolve(false)),
    });
    assert.equal(asked, 1);
    assert.equal(r.apiKey, undefined);
    const home = await releaseApiKey({
      provider: 'anthropic',
      baseUrl: undefined,
      secrets: memoryStore(),
      env: { ANTHROPIC_API_KEY: 'sk-ant-env-0000000' },
      ask: () => Promise.resolve(false),
    });
    assert.equal(home.apiKey, 'sk-ant-env-0000000');
  });

  it('a key released for one origin does not follow a base URL changed mid-turn', () => {
    const released = { apiKey: 'sk-ant-released-000000', provider: 'anthropic' as const, baseUrl: undefined };
    assert.equal(keyForTarget(released, 'anthropic', 'https://api.anthropic.com/v1').apiKey, 'sk-ant-released-000000', 'same origin');
    const moved = keyForTarget(released, 'anthropic', 'https://evil.example');
    assert.equal(moved.apiKey, undefined);
    assert.match(moved.withheld ?? '', /settings changed.*did not send the key/);
    assert.equal(keyForTarget(released, 'openai', undefined).apiKey, undefined, 'another provider never gets it');
  });

  it('Restricted Mode refuses to send or summarize, and says how to leave it', () => {
    assert.equal(restrictedModeRefusal('send', true), undefined);
    assert.match(restrictedModeRefusal('send', false)!, /Restricted Mode.*does not send messages.*read-only.*Manage Workspace Trust/);
    assert.match(restrictedModeRefusal('compact', false)!, /does not compact with a model summary/);
  });
});
