/**
 * The provider's own description of its models, for the session's model: asked with the key the
 * session released (so under the same origin rules as every request, `providers/key-origin.ts`),
 * remembered per origin and key (`ModelCatalogue`), asked before the first request of a model it does
 * not describe yet and again when the provider says a model is unknown. Pure (no vscode); never rejects.
 */
import { providerEntry } from '../common/provider-catalogue';
import { requestOrigin } from '../providers/key-origin';
import { keyId, ModelCatalogue, type CatalogueScope } from '../providers/model-catalogue';
import type { ProviderModelInfo } from '../providers/model-info';
import { modelLister } from '../providers/model-listers';
import type { ProviderId } from '../providers/types';
import type { HostLog } from './host-environment';

/** Where the requests go and with which key (the key released for that target, if any). */
export interface ModelTarget {
  provider: ProviderId;
  baseUrl: string | undefined;
  apiKey: string | undefined;
}

export class ProviderModels {
  private readonly catalogue: ModelCatalogue;
  private reported = '';

  constructor(
    private readonly log: HostLog,
    catalogue?: ModelCatalogue,
  ) {
    this.catalogue = catalogue ?? new ModelCatalogue();
  }

  private scope(t: ModelTarget): CatalogueScope | undefined {
    if (providerEntry(t.provider).endpoint !== 'vendor' || !t.apiKey) return undefined;
    const target = requestOrigin(t.provider, t.baseUrl);
    return 'origin' in target ? { provider: t.provider, origin: target.origin, keyId: keyId(t.apiKey) } : undefined;
  }

  /** What the provider said about `model`, if it was asked (synchronous: the meter reads it). */
  describe(t: ModelTarget, model: string): ProviderModelInfo | undefined {
    const scope = this.scope(t);
    return scope ? this.catalogue.find(scope, model) : undefined;
  }

  /** The provider's whole list as last read for this target; undefined when never read. */
  listed(t: ModelTarget): readonly ProviderModelInfo[] | undefined {
    const scope = this.scope(t);
    return scope ? this.catalogue.peek(scope) : undefined;
  }

  /**
   * Asks the provider for its list when it is stale, or when `model` is not in it (a new model, or one
   * the provider said it does not know). Resolves to the list known afterwards. Never rejects.
   */
  async discover(t: ModelTarget, model?: string): Promise<readonly ProviderModelInfo[] | undefined> {
    const scope = this.scope(t);
    const lister = scope && t.apiKey ? modelLister(t.provider, { apiKey: t.apiKey, baseUrl: t.baseUrl }) : undefined;
    if (!scope || !lister) return undefined;
    const unknown = model !== undefined && this.catalogue.peek(scope) !== undefined && !this.catalogue.find(scope, model);
    // A model the list lacks is asked about again, but not more than once a minute.
    const list = await this.catalogue.refresh(scope, lister, { force: unknown && this.catalogue.ageMs(scope) >= 60_000 });
    const error = this.catalogue.lastError(scope);
    if (error && error !== this.reported) {
      this.reported = error;
      this.log.warn(
        `Could not read ${providerEntry(t.provider).label}'s model list (${scope.origin}): ${error}. Using the built-in model table.`,
      );
    }
    return list;
  }

  /** The provider said a model is unknown: its list is asked again before the next request. */
  invalidate(t: ModelTarget): void {
    const scope = this.scope(t);
    if (scope) this.catalogue.invalidate(scope);
  }
}
