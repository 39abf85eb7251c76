/**
 * The models each provider listed, remembered per origin and key (a key never leaves this module:
 * only a short hash of it names the entry): asked again when the list is stale, or at once when the
 * provider says a model is unknown. A failed refresh keeps what was known; concurrent refreshes of
 * one scope share one request. Pure apart from the injected lister; never throws.
 */
import { createHash } from 'node:crypto';
import type { ProviderModelInfo } from './model-info';
import type { ProviderId } from './types';

/** Whose list: a provider at an origin, for one key. */
export interface CatalogueScope {
  provider: ProviderId;
  origin: string;
  /** `keyId(apiKey)`, or '' for providers without a key. */
  keyId: string;
}

/** Reads the provider's list; may throw (unreachable, 401, a proxy without the endpoint). */
export type ModelLister = (signal: AbortSignal) => Promise<ProviderModelInfo[]>;

/** A short, one-way name for an API key. */
export function keyId(apiKey: string | undefined): string {
  return apiKey ? createHash('sha256').update(apiKey).digest('hex').slice(0, 16) : '';
}

/** How long a list is trusted before it is asked again (models come and go by the month; windows do not change by the hour). */
export const CATALOGUE_TTL_MS = 6 * 60 * 60 * 1000;
/** How long a refresh may take before the caller goes on without it. */
export const CATALOGUE_TIMEOUT_MS = 8_000;

interface Entry {
  at: number;
  models?: readonly ProviderModelInfo[];
  /** Why the last refresh failed (for the log), when it did. */
  error?: string;
  pending?: Promise<readonly ProviderModelInfo[] | undefined>;
}

export class ModelCatalogue {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = CATALOGUE_TTL_MS,
  ) {}

  private static key(s: CatalogueScope): string {
    return `${s.provider}\n${s.origin}\n${s.keyId}`;
  }

  /** What the provider last listed for this scope (however old); undefined when it never answered. */
  peek(scope: CatalogueScope): readonly ProviderModelInfo[] | undefined {
    return this.entries.get(ModelCatalogue.key(scope))?.models;
  }

  /** The listed model with this id, or the dated snapshot of an alias (`claude-x` → `claude-x-20260101`). */
  find(scope: CatalogueScope, model: string): ProviderModelInfo | undefined {
    const models = this.peek(scope);
    if (!models || !model) return undefined;
    return models.find((m) => m.id === model) ?? models.find((m) => m.id.startsWith(`${model}-20`));
  }

  /** Why the last refresh failed, if it did. */
  lastError(scope: CatalogueScope): string | undefined {
    return this.entries.get(ModelCatalogue.key(scope))?.error;
  }

  /** True when the list is missing or older than the TTL (a failed attempt waits a minute before the next). */
  stale(scope: CatalogueScope): boolean {
    const e = this.entries.get(ModelCatalogue.key(scope));
    if (!e) return true;
    const age = this.now() - e.at;
    return e.models ? age >= this.ttlMs : age >= 60_000;
  }

  /** Milliseconds since the provider was last asked for this scope (Infinity: never). */
  ageMs(scope: CatalogueScope): number {
    const e = this.entries.get(ModelCatalogue.key(scope));
    return e ? this.now() - e.at : Infinity;
  }

  /** Forgets the scope's list so the next `refresh` asks (the provider said a model is unknown). */
  invalidate(scope: CatalogueScope): void {
    const e = this.entries.get(ModelCatalogue.key(scope));
    if (e) e.at = -Infinity;
  }

  /**
   * Asks the provider when the list is stale (or `force`), within `timeoutMs`; resolves to the list
   * known afterwards (the old one when the refresh failed). Never rejects.
   */
  async refresh(
    scope: CatalogueScope,
    lister: ModelLister,
    opts: { force?: boolean; timeoutMs?: number } = {},
  ): Promise<readonly ProviderModelInfo[] | undefined> {
    const k = ModelCatalogue.key(scope);
    const entry: Entry = this.entries.get(k) ?? { at: -Infinity };
    this.entries.set(k, entry);
    if (!opts.force && !this.stale(scope)) return entry.models;
    entry.pending ??= (async () => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), opts.timeoutMs ?? CATALOGUE_TIMEOUT_MS);
      try {
        const models = await lister(controller.signal);
        entry.models = models;
        entry.error = undefined;
      } catch (err) {
        entry.error = err instanceof Error ? err.message.slice(0, 300) : 'the model list could not be read';
      } finally {
        clearTimeout(timer);
        entry.at = this.now();
        entry.pending = undefined;
      }
      return entry.models;
    })();
    return entry.pending;
  }
}
