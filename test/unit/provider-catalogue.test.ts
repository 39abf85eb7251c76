import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PROVIDER, isProviderId, PROVIDER_CATALOGUE, PROVIDER_IDS, providerEntry } from '../../src/common/provider-catalogue';
import { parseProviderSettings } from '../../src/context/provider-settings';
import { familyFor, resolveModelLimits } from '../../src/context/models';
import { isSetUp, providerChoices, toConfigView } from '../../src/panel/config-view';
import { parseHostMessage, parseWebviewMessage, PROTOCOL_VERSION } from '../../src/protocol/messages';
import { envVarFor, resolveApiKey, storeApiKey, type SecretStore } from '../../src/providers/credentials';
import { defaultOriginFor } from '../../src/providers/key-origin';

interface SettingSchema {
  enum?: string[];
  enumDescriptions?: string[];
  default?: unknown;
}

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, SettingSchema> } };
};

function memorySecrets(): SecretStore {
  const m = new Map<string, string>();
  return {
    get: (k) => Promise.resolve(m.get(k)),
    store: (k, v) => Promise.resolve(void m.set(k, v)),
    delete: (k) => Promise.resolve(void m.delete(k)),
  };
}

describe('the provider catalogue is the one list of providers', () => {
  it("package.json's headroom.provider lists exactly the catalogue's ids, described and defaulted as the catalogue says", () => {
    const setting = pkg.contributes.configuration.properties['headroom.provider'];
    assert.deepEqual(setting.enum, PROVIDER_IDS);
    assert.deepEqual(
      setting.enumDescriptions,
      PROVIDER_IDS.map((id) => providerEntry(id).settingDescription),
    );
    assert.equal(setting.default, DEFAULT_PROVIDER);
  });

  it('the settings schema accepts every catalogue id and reads anything else as the default provider', () => {
    for (const id of PROVIDER_IDS) assert.equal(parseProviderSettings({ provider: id, model: 'm', baseUrl: undefined }).provider, id);
    for (const bad of ['gemini', '', 42, undefined, null, ['anthropic']]) {
      assert.equal(parseProviderSettings({ provider: bad, model: '', baseUrl: '' }).provider, DEFAULT_PROVIDER, String(bad));
    }
  });

  it("an empty model means the provider's default model; text is trimmed and non-text is unset", () => {
    assert.deepEqual(parseProviderSettings({ provider: 'anthropic', model: '', baseUrl: undefined }), {
      provider: 'anthropic',
      model: 'claude-sonnet-5-5',
      baseUrl: undefined,
      thinking: 'off',
    });
    // headroom.thinking: a level, anything else means off.
    assert.equal(parseProviderSettings({ provider: 'anthropic', model: '', baseUrl: undefined, thinking: 'high' }).thinking, 'high');
    assert.equal(parseProviderSettings({ provider: 'anthropic', model: '', baseUrl: undefined, thinking: 'max' }).thinking, 'max');
    assert.equal(parseProviderSettings({ provider: 'anthropic', model: '', baseUrl: undefined, thinking: 'ultra' }).thinking, 'off');
    assert.equal(parseProviderSettings({ provider: 'openai', model: undefined, baseUrl: undefined }).model, 'gpt-6.1-terra');
    assert.equal(parseProviderSettings({ provider: 'openai-compatible', model: '  ', baseUrl: undefined }).model, 'llama3.1');
    // VS Code's models: '' means the first chat model VS Code offers.
    assert.equal(parseProviderSettings({ provider: 'vscode-lm', model: '', baseUrl: undefined }).model, '');
    assert.deepEqual(
      parseProviderSettings({ provider: 'openai-compatible', model: ' qwen3:8b ', baseUrl: ' http://localhost:11434/v1 ' }),
      {
        provider: 'openai-compatible',
        model: 'qwen3:8b',
        baseUrl: 'http://localhost:11434/v1',
        thinking: 'off',
      },
    );
    assert.equal(parseProviderSettings({ provider: 'openai', model: 7, baseUrl: 7 }).baseUrl, undefined);
  });

  it('the webview protocol accepts every catalogue id in config/update, and nothing else', () => {
    for (const id of PROVIDER_IDS) assert.ok(parseWebviewMessage({ type: 'config/update', provider: id }).ok, id);
    assert.equal(parseWebviewMessage({ type: 'config/update', provider: 'gemini' }).ok, false);
    assert.ok(isProviderId('vscode-lm'));
    assert.ok(!isProviderId('toString'), 'an inherited property is not a provider');
  });

  it('the first-run view offers every catalogue provider, in order, through the snapshot', async () => {
    const config = await toConfigView({ provider: 'openai', model: 'gpt-4.1', baseUrl: undefined }, () => Promise.resolve(true));
    assert.deepEqual(
      config.providers,
      PROVIDER_IDS.map((id) => ({ id, label: PROVIDER_CATALOGUE[id].choice })),
    );
    assert.deepEqual(providerChoices(), config.providers);
    const snapshot = {
      protocolVersion: PROTOCOL_VERSION,
      extensionVersion: '0.1.0',
      workspaceName: 'ws',
      storageAvailable: true,
      trusted: true,
      session: { id: 'ses_1', title: 'New session', messageCount: 0 },
      config,
    };
    assert.ok(parseHostMessage({ type: 'session/snapshot', snapshot }).ok, 'the snapshot with the choices is a valid host message');
  });

  it('says whether the provider can answer: a vendor needs a key, a server its base URL, VS Code nothing', async () => {
    const noKey = () => Promise.resolve(false);
    const failing = () => Promise.reject(new Error('SecretStorage is locked'));
    assert.equal(await isSetUp({ provider: 'anthropic', model: 'm', baseUrl: undefined }, noKey), false);
    assert.equal(await isSetUp({ provider: 'anthropic', model: 'm', baseUrl: undefined }, () => Promise.resolve(true)), true);
    assert.equal(await isSetUp({ provider: 'openai', model: 'm', baseUrl: undefined }, failing), false);
    assert.equal(await isSetUp({ provider: 'openai-compatible', model: 'm', baseUrl: undefined }, () => Promise.resolve(true)), false);
    assert.equal(await isSetUp({ provider: 'openai-compatible', model: 'm', baseUrl: 'http://localhost:11434/v1' }, noKey), true);
    assert.equal(await isSetUp({ provider: 'vscode-lm', model: '', baseUrl: undefined }, noKey), true);
  });

  it("credentials and key origins come from the catalogue: each provider's env var and default origin", async () => {
    for (const id of PROVIDER_IDS) {
      assert.equal(envVarFor(id), providerEntry(id).envVar, id);
      assert.equal(defaultOriginFor(id), providerEntry(id).defaultOrigin, id);
    }
    assert.equal(envVarFor('anthropic'), 'ANTHROPIC_API_KEY');
    assert.equal(defaultOriginFor('vscode-lm'), undefined);
    const fromEnv = await resolveApiKey('openai', memorySecrets(), { OPENAI_API_KEY: ' sk-env-key ' });
    assert.deepEqual(fromEnv, { apiKey: 'sk-env-key', source: 'env', boundOrigin: 'https://api.openai.com' });
    // A bare key stored by an older Headroom: a server's origin is unknown, a vendor's is its API.
    const secrets = memorySecrets();
    await secrets.store('headroom.apiKey.openai-compatible', 'sk-old-bare-key');
    await secrets.store('headroom.apiKey.anthropic', 'sk-ant-old-bare-key');
    assert.equal((await resolveApiKey('openai-compatible', secrets, {}))?.boundOrigin, undefined);
    assert.equal((await resolveApiKey('anthropic', secrets, {}))?.boundOrigin, 'https://api.anthropic.com');
    await storeApiKey('anthropic', secrets, '');
    assert.equal(await resolveApiKey('anthropic', secrets, {}), undefined);
  });

  it("a model the table does not list gets its provider's cache policy and tokenizer", () => {
    for (const id of PROVIDER_IDS) {
      const limits = resolveModelLimits('some-unlisted-model', id);
      assert.equal(limits.cache, providerEntry(id).cache, id);
      assert.equal(familyFor('some-unlisted-model', id), providerEntry(id).tokenizer, id);
    }
    assert.equal(familyFor('claude-local-finetune', 'openai-compatible'), 'claude');
  });
});
