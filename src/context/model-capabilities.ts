/**
 * A model's capabilities as Headroom acts on them: what its provider reported (Anthropic's Models API)
 * wins; otherwise the model table's row; otherwise what its id says (an OpenAI reasoning id takes an
 * effort; anything else gets no thinking parameter, which every model accepts). Pure; never throws.
 */
import { providerEntry, type ProviderId } from '../common/provider-catalogue';
import type { ModelCapabilities, ProviderModelInfo } from '../providers/model-info';

/** What a model-table row says about capabilities (a `ModelInfo` is one). */
export interface TableCapabilities extends Omit<ModelCapabilities, 'contextManagement' | 'images'> {
  provider: ProviderId;
  images: boolean;
}

/** Efforts of an OpenAI reasoning model the table does not know: the three every one of them takes. */
const BASIC_EFFORTS = ['low', 'medium', 'high'] as const;

export function capabilitiesOf(
  model: string,
  provider: ProviderId,
  row: TableCapabilities | undefined,
  reported: ProviderModelInfo | undefined,
): ModelCapabilities {
  // VS Code's Language Model API has no thinking or sampling parameter to send.
  if (providerEntry(provider).endpoint === 'vscode')
    return { thinking: 'none', efforts: [], thinkingOff: true, images: false, sampling: false, contextManagement: [] };
  if (reported?.capabilities) return reported.capabilities;
  if (row && row.provider === provider)
    return {
      thinking: row.thinking,
      efforts: row.efforts,
      thinkingOff: row.thinkingOff,
      images: row.images,
      sampling: row.sampling,
      contextManagement: [],
    };
  const id = model.trim().toLowerCase();
  const reasoningId = /^(?:.*\/)?(o\d|gpt-([5-9]|\d\d)(?![.\d]*-chat))/.test(id);
  if (row?.thinking === 'effort' || (row === undefined && reasoningId && provider !== 'anthropic'))
    return { thinking: 'effort', efforts: BASIC_EFFORTS, thinkingOff: false, images: row?.images, sampling: false, contextManagement: [] };
  return { thinking: 'none', efforts: [], thinkingOff: true, images: row?.images, sampling: true, contextManagement: [] };
}
