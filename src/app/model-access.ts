/**
 * The session's model as the session service reaches it: which model the current session talks to
 * (stored with it; the settings give the default), the API key released for the next turn, a
 * provider for the current settings, the model's limits (with the window a local server or the
 * editor reports) and the validated context settings. Pure (no vscode): the editor is the port.
 */
import { SessionModel } from '../agent/session-model';
import { DEFAULT_PROVIDER, providerEntry } from '../common/provider-catalogue';
import { DEFAULT_SUMMARY_MAX_TOKENS, inputLimitWithin } from '../context/compaction/summary-budget';
import { findModel, resolveModelLimits, supportsReasoning, type ServerReportedWindow } from '../context/models';
import type { ModelChoice } from '../context/model-choice';
import type { ContextSettings } from '../context/settings';
import { withThinking, type ThinkingLimits } from '../context/thinking';
import { CONNECTION_TEST_TIMEOUT_MS, endpointUrl, testConnection, type ConnectionResult } from '../providers/connection-test';
import { createProvider } from '../providers/create-provider';
import { keyForTarget, type ReleasedKey } from '../providers/key-release';
import type { Provider } from '../providers/provider';
import { ServerWindowCache } from '../providers/server-discovery';
import type { ProviderId } from '../providers/types';
import type { HostEnvironment } from './host-environment';

/** What kind of endpoint the provider is (catalogue): a vendor API, a server at a base URL, or VS Code's models. */
const endpointOf = (provider: ProviderId) => providerEntry(provider).endpoint;

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
  private readonly serverWindows = new ServerWindowCache((url, init) => fetch(url, init));
  /** The input limit VS Code reported, for the model it was asked about. */
  private lmWindow: { model: string; window: ServerReportedWindow } | undefined;

  /** The current session's model (`agent/session-model.ts`); replaced when another session is opened. */
  private model: SessionModel;

  constructor(private readonly env: HostEnvironment) {
    this.model = new SessionModel({ defaults: () => settingsModel(env) }, undefined);
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
  async releaseKey(): Promise<void> {
    const { provider, baseUrl } = this.target();
    const released = await this.env.releaseKey(provider, baseUrl);
    this.released = { ...released, provider, baseUrl };
    if (released.withheld) this.env.log.warn(released.withheld);
  }

  /** A provider for the current settings, with the released key only if it was released for them. */
  providerFor(provider: ProviderId, baseUrl: string | undefined, model: string): Provider {
    const key = keyForTarget(this.released, provider, baseUrl);
    return createProvider({
      provider,
      baseUrl,
      apiKey: key.apiKey,
      missingKeyMessage: key.withheld,
      reasons: supportsReasoning,
      lm: endpointOf(provider) === 'vscode' ? this.env.languageModel(model) : undefined,
    });
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
    return testConnection(client, { provider, model, baseUrl, apiKey: key.apiKey });
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
    const limits = resolveModelLimits(configured, provider, this.contextSettings());
    return { model: configured, inputLimit: inputLimitWithin(limits.contextWindow, DEFAULT_SUMMARY_MAX_TOKENS) };
  }

  /** The limits of the session's model, its thinking budget counted in the output reservation. */
  limits(): ThinkingLimits {
    const { provider, model, baseUrl, thinking } = this.target();
    const endpoint = endpointOf(provider);
    const server =
      endpoint === 'server' && baseUrl
        ? this.serverWindows.peek(baseUrl, model)
        : endpoint === 'vscode' && this.lmWindow?.model === model
          ? this.lmWindow.window
          : undefined;
    return withThinking(resolveModelLimits(model, provider, this.contextSettings(), server), thinking);
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
