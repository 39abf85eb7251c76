/**
 * The one list of model providers Headroom talks to, and what each needs: its id (the value of the
 * `headroom.provider` setting), how people see it, where its key comes from and may go, its default
 * model and cache policy. Everything else derives from this table: `ProviderId`, the settings
 * schema, credentials and key origins, the Set API Key and Select Model pickers, the first-run
 * choices and the webview protocol's provider ids, and package.json's `headroom.provider` enum (a
 * unit test compares them). It lives in `common/` because it is pure data that imports nothing: the
 * protocol (browser-safe, below `providers/`) validates ids against it. The factory column is
 * `ADAPTERS` in `providers/create-provider.ts`, typed by these ids so a provider without an adapter
 * does not compile; it lives there because it loads the adapters.
 *
 * Adding a provider: an entry here, its adapter, its line in `ADAPTERS` (and package.json's enum).
 */

/** Prompt caching a model supports: Anthropic-style explicit breakpoints, OpenAI automatic prefix caching, or none. */
export type CacheSupport = 'explicit' | 'automatic' | 'none';

/**
 * Where a provider serves its models, which decides what it needs before it can answer:
 * - `vendor`: a vendor's API; needs an API key (SecretStorage or `envVar`), sent to `defaultOrigin`
 *   unless a base URL (a proxy) is set.
 * - `server`: a server at the base URL the user gives (Ollama, LM Studio, vLLM); the base URL is what
 *   it needs, a key is optional. Where an old key without a recorded origin belongs is unknown.
 * - `vscode`: VS Code's Language Model API; no key, no URL.
 */
export type ProviderEndpoint = 'vendor' | 'server' | 'vscode';

/** One provider of the catalogue. */
export interface ProviderEntry {
  /** Its name in pickers, titles and messages ("your Anthropic API key"). */
  readonly label: string;
  /** One line under the label in the Set API Key picker. */
  readonly detail: string;
  /** Its option in the first-run view's provider list. */
  readonly choice: string;
  /** package.json's enumDescription for this value of `headroom.provider`. */
  readonly settingDescription: string;
  readonly endpoint: ProviderEndpoint;
  /** The environment variable read when SecretStorage holds no key. */
  readonly envVar?: string;
  /** Where a key goes when no base URL is set (the SDK's default endpoint); absent: it takes no key. */
  readonly defaultOrigin?: string;
  /** What an empty `headroom.model` means ('' for VS Code: the first chat model it offers). */
  readonly defaultModel: string;
  /** Prompt caching of a model the model table does not list. */
  readonly cache: CacheSupport;
  /** The tokenizer of a model the model table does not list (any model id with "claude" in it counts as 'claude'). */
  readonly tokenizer: 'claude' | 'o200k';
}

export const PROVIDER_CATALOGUE = {
  anthropic: {
    label: 'Anthropic',
    detail: 'Claude models through the Anthropic Messages API',
    choice: 'Anthropic',
    settingDescription: 'Anthropic Messages API',
    endpoint: 'vendor',
    envVar: 'ANTHROPIC_API_KEY',
    defaultOrigin: 'https://api.anthropic.com',
    defaultModel: 'claude-sonnet-5-5',
    cache: 'explicit',
    tokenizer: 'claude',
  },
  openai: {
    label: 'OpenAI',
    detail: 'GPT and o-series models through the Responses API',
    choice: 'OpenAI',
    settingDescription: 'OpenAI Responses API',
    endpoint: 'vendor',
    envVar: 'OPENAI_API_KEY',
    defaultOrigin: 'https://api.openai.com',
    defaultModel: 'gpt-6.1-terra',
    cache: 'automatic',
    tokenizer: 'o200k',
  },
  'openai-compatible': {
    label: 'OpenAI-compatible server',
    detail: 'Ollama, LM Studio, vLLM… at a base URL you give',
    choice: 'OpenAI-compatible server (Ollama, LM Studio, vLLM)',
    settingDescription:
      'Any OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM) at headroom.baseUrl; its real context length is read from the server',
    endpoint: 'server',
    // The OpenAI SDK's endpoint when no base URL is set.
    defaultOrigin: 'https://api.openai.com',
    defaultModel: 'llama3.1',
    cache: 'none',
    tokenizer: 'o200k',
  },
  'vscode-lm': {
    label: 'VS Code language models',
    detail: 'Chat models other extensions offer through VS Code (e.g. GitHub Copilot); no key',
    choice: 'VS Code language models (e.g. GitHub Copilot), no key',
    settingDescription: "A chat model from VS Code's Language Model API (GitHub Copilot or any extension that provides one); no key needed",
    endpoint: 'vscode',
    defaultModel: '',
    cache: 'none',
    tokenizer: 'o200k',
  },
} as const satisfies Record<string, ProviderEntry>;

/** Where a model is served: a vendor API, an OpenAI-compatible server, or VS Code's Language Model API (no key). */
export type ProviderId = keyof typeof PROVIDER_CATALOGUE;

/** Every provider id, in catalogue order (the order pickers and the setting list them). */
export const PROVIDER_IDS = Object.keys(PROVIDER_CATALOGUE) as [ProviderId, ...ProviderId[]];

/** The provider used while `headroom.provider` is unset or not one of the ids (package.json's default). */
export const DEFAULT_PROVIDER: ProviderId = 'anthropic';

/** The catalogue entry of a provider. */
export function providerEntry(id: ProviderId): ProviderEntry {
  return PROVIDER_CATALOGUE[id];
}

/** Whether a string (a setting, a webview message) names a provider of the catalogue. */
export function isProviderId(value: unknown): value is ProviderId {
  return typeof value === 'string' && Object.hasOwn(PROVIDER_CATALOGUE, value);
}
