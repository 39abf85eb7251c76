import assert from 'node:assert/strict';
import {
  formatPrice,
  modelOptions,
  parseModelChoice,
  serializeModelChoice,
  thinkingLevelsFor,
  type ModelChoice,
} from '../../src/context/model-choice';
import { MODEL_TABLE, resolveModelLimits } from '../../src/context/models';

describe('context model choice: what a session remembers and what the picker offers', () => {
  const sonnet: ModelChoice = { provider: 'anthropic', model: 'claude-sonnet-4-5', thinking: 'medium' };

  it('round-trips through the session store and rejects damaged records', () => {
    assert.deepEqual(parseModelChoice(serializeModelChoice(sonnet)), sonnet);
    assert.equal(parseModelChoice(undefined), undefined);
    assert.equal(parseModelChoice('{not json'), undefined);
    assert.equal(parseModelChoice(JSON.stringify({ provider: 'gemini', model: 'x', thinking: 'off' })), undefined);
    // An unknown level (a newer version's) falls back to off rather than losing the model.
    assert.deepEqual(parseModelChoice(JSON.stringify({ provider: 'openai', model: 'gpt-5', thinking: 'ultra' })), {
      provider: 'openai',
      model: 'gpt-5',
      thinking: 'off',
    });
  });

  it("without the provider's list: every table model but the retired ones, deprecated ones say so, the current one marked", () => {
    const options = modelOptions({ current: sonnet, languageModels: [], serverUrl: undefined });
    assert.equal(options.length, MODEL_TABLE.filter((m) => m.lifecycle !== 'retired').length);
    assert.ok(!options.some((o) => o.model === 'claude-3-opus' || o.model === 'claude-opus-4-1'), 'retired models are not offered');
    const current = options.filter((o) => o.current);
    assert.deepEqual(
      current.map((o) => o.model),
      ['claude-sonnet-4-5'],
    );
    assert.match(
      current[0].description,
      /^200k window · \$3 in \/ \$15 out per M tokens \(cache read \$0\.3\) · reasons · deprecated, retires 2026-11-30$/,
    );
    const opus = options.find((o) => o.model === 'claude-opus-5-5');
    assert.match(opus?.description ?? '', /^1M window · \$4 in \/ \$20 out per M tokens \(cache read \$0\.2\) · adaptive thinking$/);
    assert.ok(options.some((o) => o.provider === 'openai' && o.model === 'gpt-4.1'));
  });

  it("with the provider's list: exactly the key's models, with the windows the provider reported", () => {
    const options = modelOptions({
      current: sonnet,
      languageModels: [],
      serverUrl: undefined,
      vendorModels: {
        anthropic: [
          { id: 'claude-opus-5-5', contextWindow: 1_000_000, maxOutput: 128_000, lifecycle: 'active' },
          { id: 'claude-tiny-9', contextWindow: 32_000, maxOutput: 8_000, lifecycle: 'active' },
          { id: 'claude-sonnet-4-5', contextWindow: 200_000, lifecycle: 'deprecated', retiresAt: '2026-11-30T00:00:00Z' },
        ],
      },
    });
    const anthropic = options.filter((o) => o.provider === 'anthropic');
    assert.deepEqual(
      anthropic.map((o) => o.model),
      ['claude-opus-5-5', 'claude-tiny-9', 'claude-sonnet-4-5'],
    );
    assert.match(anthropic[1].description, /^32k window · price unknown$/);
    assert.match(anthropic[2].description, /deprecated, retires 2026-11-30$/);
    assert.ok(
      options.some((o) => o.provider === 'openai'),
      'another vendor is still listed from the table',
    );
  });

  it('offers VS Code language models with their input limit, and the server model of a compatible provider', () => {
    const lm = [{ id: 'copilot-gpt-4o', name: 'GPT-4o', vendor: 'copilot', maxInputTokens: 64_000 }];
    const options = modelOptions({
      current: { provider: 'vscode-lm', model: '', thinking: 'off' },
      languageModels: lm,
      serverUrl: undefined,
    });
    const entry = options.find((o) => o.provider === 'vscode-lm');
    assert.deepEqual([entry?.label, entry?.description, entry?.current], ['GPT-4o', '64k window · copilot · no key', true]);

    const local = modelOptions({
      current: { provider: 'openai-compatible', model: 'qwen2.5-coder:7b', thinking: 'off' },
      languageModels: [],
      serverUrl: 'http://127.0.0.1:11434/v1',
      serverWindow: 8_192,
    });
    const server = local.filter((o) => o.current);
    assert.equal(server.length, 1);
    assert.equal(server[0].description, '8.2k window (server) · http://127.0.0.1:11434/v1');
  });

  it("lists the local server's models, the current one with the window the server reported", () => {
    const options = modelOptions({
      current: { provider: 'openai-compatible', model: 'qwen2.5-coder:7b', thinking: 'off' },
      languageModels: [],
      serverUrl: 'http://127.0.0.1:11434/v1',
      serverModels: ['llama3.1:8b', 'qwen2.5-coder:7b'],
      serverWindow: 32_768,
    });
    const local = options.filter((o) => o.provider === 'openai-compatible');
    assert.deepEqual(
      local.map((o) => [o.model, o.current, o.description]),
      [
        ['llama3.1:8b', false, 'window read when chosen · http://127.0.0.1:11434/v1'],
        ['qwen2.5-coder:7b', true, '32.8k window (server) · http://127.0.0.1:11434/v1'],
      ],
    );
  });

  it("puts a local server's own models first, each with the window it reported, and says when the current one is not there", () => {
    const url = 'http://127.0.0.1:11434/v1';
    const options = modelOptions({
      current: { provider: 'openai-compatible', model: 'llama3.1', thinking: 'off' },
      languageModels: [],
      serverUrl: url,
      serverModels: ['qwen2.5-coder:7b', 'llama3.2:3b', 'phi4:14b'],
      serverWindows: new Map([
        ['qwen2.5-coder:7b', { contextWindow: 32_768, loaded: true }],
        ['llama3.2:3b', { contextWindow: 4096, loaded: false, modelMax: 131_072 }],
      ]),
    });
    assert.deepEqual(
      options.slice(0, 4).map((o) => [o.model, o.current, o.description]),
      [
        ['llama3.1', true, `not on this server · ${url}`],
        ['qwen2.5-coder:7b', false, `32.8k window (server) · ${url}`],
        ['llama3.2:3b', false, `not loaded: 4.1k until loaded (up to 131k) · ${url}`],
        ['phi4:14b', false, `window read when chosen · ${url}`],
      ],
    );
    assert.ok(
      options.slice(4).every((o) => o.provider !== 'openai-compatible'),
      'the cloud catalogue after the server',
    );
    // Ollama lists the tag: the current untagged name is that model, marked, not a second entry.
    const tagged = modelOptions({
      current: { provider: 'openai-compatible', model: 'llama3.1', thinking: 'off' },
      languageModels: [],
      serverUrl: url,
      serverModels: ['llama3.1:latest'],
    });
    assert.deepEqual([tagged[0].model, tagged[0].current, tagged[1].provider], ['llama3.1:latest', true, 'anthropic']);
  });

  it('keeps a model typed in by hand in the list, marked current', () => {
    const options = modelOptions({
      current: { provider: 'openai', model: 'gpt-9-preview', thinking: 'off' },
      languageModels: [],
      serverUrl: undefined,
    });
    assert.deepEqual([options[0].model, options[0].current, options[0].description], ['gpt-9-preview', true, 'not in the model table']);
  });

  it('offers thinking levels only where the model reasons and the provider can send them', () => {
    const levels = (c: Pick<ModelChoice, 'provider' | 'model'>) => thinkingLevelsFor(resolveModelLimits(c.model, c.provider).capabilities);
    assert.deepEqual(levels(sonnet), ['off', 'low', 'medium', 'high']);
    assert.deepEqual(levels({ provider: 'openai', model: 'gpt-4.1' }), []);
    assert.deepEqual(levels({ provider: 'vscode-lm', model: 'claude-sonnet-4-5' }), []);
  });

  it('prints prices per million tokens', () => {
    assert.equal(
      formatPrice({ input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 }),
      '$1.25 in / $10 out per M tokens (cache read $0.13)',
    );
  });
});
