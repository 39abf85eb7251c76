/**
 * The session's model as the session service reaches it: which model the current session talks to
 * (stored with it; the settings give the default), the API key released for the next turn, a
 * provider for the current settings, the model's limits (with the window a local server or the
 * editor reports) and the validated context settings. Pure (no vscode): the editor is the port.
 */
import { SessionModel } from '../agent/session-model';
import { DEFAULT_PROVIDER, providerEntry } from '../common/provider-catalogue';
import type { UsageDoubt } from '../agent/context-accounting';
import { DEFAULT_SUMMARY_MAX_TOKENS, inputLimitWithin } from '../context/compaction/summary-budget';
import { findModel, resolveModelLimits, supportsReasoning, type ServerReportedWindow } from '../context/models';
import type { ModelChoice } from '../context/model-choice';
import type { ContextSettings } from '../context/settings';
import { thinkingOffers, withThinking, type ThinkingOffer, type ThinkingLimits } from '../context/thinking';
import type { AgentEvent } from '../agent/events';
import { saysModelUnknown } from '../providers/unknown-model';
import { CONNECTION_TEST_TIMEOUT_MS, endpointUrl, testConnection, type ConnectionResult } from '../providers/connection-test';
import { createProvider } from '../providers/create-provider';
import { RefusedParameters } from '../providers/parameter-fallback';
import type { InputCounter } from '../providers/input-count';
import { createInputCounter } from '../providers/input-counters';
import { keyForTarget, type ReleasedKey } from '../providers/key-release';
import type { Provider } from '../providers/provider';
import type { ProviderModelInfo } from '../providers/model-info';
import { ServerWindowCache, type ServerWindow } from '../providers/server-discovery';
import { listServerModels, listWithWindows, type ModelsFetch, type ServerModels } from '../providers/server-models';
import { withServerKey, type ServerRequestInit } from '../providers/key-origin';
import type { ServerTraits } from '../context/usage-evidence';
import { formatTokens } from '../protocol/format';
import type { ProviderId } from '../providers/types';
import type { HostEnvironment } from './host-environment';
import { ProviderModels, type ModelTarget } from './provider-models';

/** What kind of endpoint the provider is (catalogue): a vendor API, a server at a base URL, or VS Code's models. */
const endpointOf = (provider: ProviderId) => providerEntry(provider).endpoint;

/** The thinking levels the picker offers for a model, each with what a request at it sends. */
export type ModelThinking = (provider: ProviderId, model: string) => readonly ThinkingOffer[];

/** The settings' model: the default a new session starts with. */
function settingsModel(env: HostEnvironment): ModelChoice {
  const { provider, model, thinking } = env.settings.provider();
  return { provider, model, thinking };
}

export class ModelAccess {
  /** The key for the next turn, released before it starts (turn wiring is synchronous), and for where. */
  private released: ReleasedKey & { provider: ProviderId; baseUrl: string | undefined } = {
    provider: DEFAULT_PROVIDER,
    baseUrl: undefined,
  };
  private reportedSettingsErrors = '';
  private reportedServerNote = '';
  private readonly serverWindows = new ServerWindowCache((url, init) => fetch(url, this.keyed(url, init)));
  /** The configured server's model list, asked with the key released for it. */
  private readonly fetchModels: ModelsFetch = (url, init) => fetch(url, this.keyed(url, init));
  /** Models whose server was already said to be cutting the conversation (said once each). */
  private readonly truncationTold = new Set<string>();
  /** The input limit VS Code reported, for the model it was asked about. */
  private lmWindow: { model: string; window: ServerReportedWindow } | undefined;
  /** What the vendor's API says about its models (Anthropic's Models API), per origin and key. */
  private readonly providerModels: ProviderModels;
  /** Parameters a model refused with a 400: left out from then on, the person told once. */
  private readonly refused: RefusedParameters;

  /** The current session's model (`agent/session-model.ts`); replaced when another session is opened. */
  private model: SessionModel;

  constructor(private readonly env: HostEnvironment) {
    this.model = new SessionModel({ defaults: () => settingsModel(env) }, undefined);
    this.providerModels = new ProviderModels(env.log);
    this.refused = new RefusedParameters((model, parameter, message) =>
      env.warn(
        `${model} refused a request parameter (${parameter}: "${message.slice(0, 200)}"). Headroom sent the request again without it and leaves it out for this model from now on.`,
      ),
    );
  }

  /**
   * The session being opened brings its model: `stored` (undefined: the settings' default, stored
   * now); `save` stores a change with the session (absent when sessions are not stored).
   */
  useSession(stored: ModelChoice | undefined, save: ((choice: ModelChoice) => Promise<void>) | undefined): void {
    this.model = new SessionModel({ defaults: () => settingsModel(this.env), save, onError: (m) => this.env.warn(m) }, stored);
  }

  /** The session's model: the one stored with it, or the settings' when they changed since. */
  choice(): ModelChoice {
    return this.model.current();
  }

  /** Switches the session's model (and thinking level) and stores it with the session. */
  choose(choice: ModelChoice): Promise<void> {
    return this.model.set(choice);
  }

  /** Where requests go: the session's model, at the configured base URL. */
  target(): ModelChoice & { baseUrl: string | undefined } {
    return { ...this.choice(), baseUrl: this.env.settings.provider().baseUrl };
  }

  /**
   * The key for the next requests, released only to the origin it is bound to or one the user allowed
   * (`releaseApiKey`); otherwise the requests fail with an `auth` error that says why.
   */
  async releaseKey(options: { quiet?: boolean } = {}): Promise<void> {
    const { provider, baseUrl } = this.target();
    const released = await this.env.releaseKey(provider, baseUrl, options.quiet ? { ask: false } : undefined);
    // Quietly (while idle, nobody asked): a key that would need a question is not released, and nothing is said.
    if (options.quiet && !released.apiKey) return;
    this.released = { ...released, provider, baseUrl };
    if (released.withheld) this.env.log.warn(released.withheld);
  }

  /** `init` with the key released for the current target, when `url` is on its origin. */
  private keyed(url: string, init: ServerRequestInit | undefined): ServerRequestInit | undefined {
    const { provider, baseUrl } = this.target();
    return withServerKey(url, init, keyForTarget(this.released, provider, baseUrl).apiKey, baseUrl);
  }

  /**
   * The provider's input counter for the session's model, with the key released for it (none where
   * the provider cannot count or no key was released; a local server only once it is known to be
   * llama.cpp or vLLM); parameters a model refused are left out.
   */
  inputCounter(): InputCounter | undefined {
    const { provider, baseUrl, model } = this.target();
    const counter = createInputCounter({
      provider,
      baseUrl,
      apiKey: keyForTarget(this.released, provider, baseUrl).apiKey,
      reasons: supportsReasoning,
      lm: endpointOf(provider) === 'vscode' ? this.env.languageModel(model) : undefined,
      // A local server that can tokenize counts with the model's own tokenizer and chat template.
      serverKind: this.server(provider, baseUrl, model)?.kind,
      onError: (m) => this.env.log.info(`The provider could not count the request (${m}); the estimate stands.`),
    });
    return counter && { countInput: (req, signal) => counter.countInput(this.refused.apply(req), signal) };
  }

  /**
   * A provider for the current settings, with the released key only if it was released for them. An
   * Ollama server is spoken to through its native API, asking for the window Headroom budgets to.
   */
  providerFor(provider: ProviderId, baseUrl: string | undefined, model: string): Provider {
    const key = keyForTarget(this.released, provider, baseUrl);
    const server = this.server(provider, baseUrl, model);
    return createProvider({
      provider,
      baseUrl,
      apiKey: key.apiKey,
      missingKeyMessage: key.withheld,
      reasons: supportsReasoning,
      lm: endpointOf(provider) === 'vscode' ? this.env.languageModel(model) : undefined,
      refused: this.refused,
      ollama: server?.kind === 'ollama' ? { numCtx: this.ollamaNumCtx(provider, model, server) } : undefined,
    });
  }

  /**
   * The `num_ctx` to send Ollama: the window budgeted to, whenever Ollama will run with it (the loaded
   * context, the Modelfile's, the old default, or the user's setting); undefined for the first request
   * of a model not loaded yet, so Ollama picks its own default (read back before the next turn).
   */
  private ollamaNumCtx(provider: ProviderId, model: string, server: ServerWindow): number | undefined {
    const limits = resolveModelLimits(model, provider, this.contextSettings(), { ...server, adjustable: true });
    const fromSetting = limits.source === 'model-setting' || limits.source === 'provider-setting';
    return server.ollama?.numCtxKnown || fromSetting ? limits.contextWindow : undefined;
  }

  /** What the server at the configured base URL said about `model` (OpenAI-compatible servers only). */
  private server(provider: ProviderId, baseUrl: string | undefined, model: string): ServerWindow | undefined {
    return endpointOf(provider) === 'server' && baseUrl ? this.serverWindows.peek(baseUrl, model) : undefined;
  }

  /** What the gate needs to judge the usage figures of the server answering now (local servers only). */
  serverTraits(): ServerTraits | undefined {
    const { provider, model, baseUrl } = this.target();
    const w = this.server(provider, baseUrl, model);
    return w ? { truncates: w.truncates, uncachedUsage: w.ollama?.uncachedUsage === true } : undefined;
  }

  /**
   * A usage figure the gate did not use: logged; when the server may be cutting the conversation, its
   * window is asked for again before the next turn and the user is told, once per model.
   */
  usageDoubted(d: UsageDoubt): void {
    this.env.log.warn(`usage figure not used (${d.doubt}): ${d.reported} tokens reported for ~${d.estimated} counted by ${d.model}`);
    if (!d.truncation) return;
    const { baseUrl } = this.target();
    if (baseUrl) this.serverWindows.forget(baseUrl, d.model);
    if (this.truncationTold.has(d.model)) return;
    this.truncationTold.add(d.model);
    this.env.warn(
      `The server may be cutting the conversation: it reported ${formatTokens(d.reported)} tokens for a prompt of ~${formatTokens(d.estimated)}. ` +
        'Headroom compacts before the next request and asks the server for its context again.',
    );
  }

  /**
   * Test connection: releases the key for the current target (the user may be asked, as before a
   * turn), then sends one tiny request (at most 16 output tokens) through the same adapter a turn uses, without retries.
   */
  async testConnection(): Promise<ConnectionResult> {
    await this.releaseKey();
    const { provider, model, baseUrl } = this.target();
    const key = keyForTarget(this.released, provider, baseUrl);
    const url = endpointUrl({ provider, baseUrl });
    if (endpointOf(provider) === 'vendor' && !key.apiKey)
      return {
        ok: false,
        message: key.withheld ?? `No ${providerEntry(provider).label} API key is set: use Set API Key… to set one.`,
        url,
      };
    const client = createProvider({
      provider,
      baseUrl,
      apiKey: key.apiKey,
      retry: { maxRetries: 0 },
      timeoutMs: CONNECTION_TEST_TIMEOUT_MS,
      reasons: supportsReasoning,
      lm: endpointOf(provider) === 'vscode' ? this.env.languageModel(model) : undefined,
    });
    // A server's own list says whether it has the model: a lenient one would answer any name.
    const serverModels = endpointOf(provider) === 'server' && baseUrl ? await listServerModels(baseUrl, this.fetchModels) : [];
    return testConnection(client, { provider, model, baseUrl, apiKey: key.apiKey, serverModels });
  }

  /**
   * Where a summary goes: `headroom.summarizerModel` on the session's provider, unless it is another
   * provider's model (after a switch across providers it would be sent to the wrong API) — then, and
   * when none is set, the session's own model. `inputLimit`: what one summary request may take when the
   * summarizer is another model (its own window, not the chat model's); undefined for the session's model.
   * Read at every compaction pass, so it follows a model switch.
   */
  summarizer(): { model: string; inputLimit?: number } {
    const { provider, model } = this.target();
    const configured = this.env.settings.compaction().summarizerModel;
    const known = configured ? findModel(configured) : undefined;
    if (!configured || configured === model || (known && known.provider !== provider)) return { model };
    // The provider's own description of the summarizer model, where its Models API gave one.
    const described = this.providerModels.describe(this.modelTarget(), configured);
    const limits = resolveModelLimits(configured, provider, this.contextSettings(), undefined, described);
    return { model: configured, inputLimit: inputLimitWithin(limits.contextWindow, DEFAULT_SUMMARY_MAX_TOKENS) };
  }

  /**
   * The limits of the session's model — the window, output limit and capabilities its provider
   * reported where it did (Models API, the editor, a local server) — with its thinking counted in the
   * output reservation.
   */
  limits(): ThinkingLimits {
    const { provider, model, baseUrl, thinking } = this.target();
    const endpoint = endpointOf(provider);
    const found = this.server(provider, baseUrl, model);
    const server = found
      ? { ...found, adjustable: found.kind === 'ollama' }
      : endpoint === 'vscode' && this.lmWindow?.model === model
        ? this.lmWindow.window
        : undefined;
    const described = this.providerModels.describe(this.modelTarget(), model);
    return withThinking(resolveModelLimits(model, provider, this.contextSettings(), server, described), thinking);
  }

  /** Where requests go, with the key released for exactly there (none otherwise). */
  private modelTarget(): ModelTarget {
    const { provider, baseUrl } = this.target();
    return { provider, baseUrl, apiKey: keyForTarget(this.released, provider, baseUrl).apiKey };
  }

  /**
   * Asks the vendor's API which models the released key may use and what each takes, when its list is
   * stale or lacks the session's model (before the first request of a model). Never rejects.
   */
  async discoverProviderModels(): Promise<void> {
    await this.providerModels.discover(this.modelTarget(), this.target().model);
  }

  /** Watches the session's replies: a provider that says the model is unknown gets its list read again before the next request. */
  observe(e: AgentEvent): void {
    if (e.type === 'message_end' && e.message.role === 'assistant' && saysModelUnknown(e.message.error))
      this.providerModels.invalidate(this.modelTarget());
  }

  /**
   * For the model picker: releases the key for the current target (the user may be asked, as before a
   * turn), reads the provider's list if stale, and returns what each vendor listed for its key (only
   * the current provider is asked: another vendor's key is not released for a list).
   */
  async listModels(): Promise<Partial<Record<ProviderId, readonly ProviderModelInfo[]>>> {
    await this.releaseKey();
    const t = this.modelTarget();
    const list = (await this.providerModels.discover(t)) ?? this.providerModels.listed(t);
    return list ? { [t.provider]: list } : {};
  }

  /**
   * What the model picker offers beyond the table: each vendor's list for its key (`listModels`) and
   * the thinking levels of a model and what each sends (as its provider described it, else by the table).
   */
  async pickerModels(): Promise<{ vendorModels: Partial<Record<ProviderId, readonly ProviderModelInfo[]>>; thinkingFor: ModelThinking }> {
    const vendorModels = await this.listModels();
    const t = this.modelTarget();
    const thinkingFor: ModelThinking = (provider, model) => {
      const described = provider === t.provider ? this.providerModels.describe(t, model) : undefined;
      return thinkingOffers(resolveModelLimits(model, provider, undefined, undefined, described).capabilities);
    };
    return { vendorModels, thinkingFor };
  }

  /** For the model picker: the configured server's models and what it says of their windows (none for other providers). */
  async serverModels(): Promise<ServerModels> {
    const { provider, baseUrl } = this.target();
    if (endpointOf(provider) !== 'server' || !baseUrl) return { ids: [], windows: new Map() };
    await this.releaseKey({ quiet: true });
    return listWithWindows(baseUrl, this.fetchModels, (id) => this.serverWindows.get(baseUrl, id));
  }

  /**
   * Asks an OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM) which context length it
   * really uses, so `limits()` budgets to it; what it says about a smaller window is shown once.
   */
  async discoverServerWindow(): Promise<void> {
    const { provider, model, baseUrl } = this.target();
    if (endpointOf(provider) === 'vscode') {
      // VS Code tells each chat model's input limit; that is the window to budget to.
      const window = await this.env.languageModelWindow(model).catch(() => undefined);
      this.lmWindow = window ? { model, window } : undefined;
      return;
    }
    if (endpointOf(provider) !== 'server' || !baseUrl) return;
    const found = await this.serverWindows.get(baseUrl, model);
    const note = found?.warnings.join(' ');
    if (note && note !== this.reportedServerNote) {
      this.reportedServerNote = note;
      this.env.warn(note);
    }
  }

  /** The validated context settings; invalid values are reported once (log + warning) and keep their defaults. */
  contextSettings(): ContextSettings {
    const { settings, errors } = this.env.settings.context();
    const key = errors.join('\n');
    if (key !== this.reportedSettingsErrors) {
      this.reportedSettingsErrors = key;
      if (errors.length) this.env.warn(`Some settings are invalid and use their defaults: ${errors.join('; ')}`);
    }
    return settings;
  }
}
