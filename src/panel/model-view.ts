/** The session's model as the panel header shows it (view model for `ConfigView.modelInfo`). Pure. */
import { providerEntry } from '../common/provider-catalogue';
import { acceptsImages, findModel } from '../context/models';
import type { ThinkingLimits } from '../context/thinking';
import { formatTokens, formatUsdRate } from '../protocol/format';
import type { ConfigView } from '../protocol/view-models';

/**
 * Window budgeted to (after settings and what the provider reported; "unknown" when only assumed),
 * price per million input / output tokens from the model table, the thinking level when thinking is
 * asked for, and whether the model is deprecated or retired.
 */
export function modelInfoView(limits: ThinkingLimits, thinking: string): NonNullable<ConfigView['modelInfo']> {
  // VS Code's models are paid through the extension that offers them: the table's price is not theirs.
  const price = providerEntry(limits.provider).endpoint === 'vscode' ? undefined : findModel(limits.model)?.price;
  const imagesField = (images: boolean | undefined) => (images === undefined ? {} : { images });
  const retires = limits.retiresAt && /^\d{4}-\d{2}-\d{2}/.test(limits.retiresAt) ? `, retires ${limits.retiresAt.slice(0, 10)}` : '';
  return {
    window: formatTokens(limits.contextWindow),
    ...(limits.source === 'default' ? { windowAssumed: true } : {}),
    ...(price ? { price: `${formatUsdRate(price.input)} / ${formatUsdRate(price.output)} per M tokens` } : {}),
    ...(limits.thinking && limits.thinking.mode !== 'disabled' ? { thinking } : {}),
    ...imagesField(limits.capabilities.images ?? acceptsImages(limits.model, limits.provider)),
    ...(limits.lifecycle === 'retired'
      ? { lifecycle: 'retired' }
      : limits.lifecycle === 'deprecated'
        ? { lifecycle: `deprecated${retires}` }
        : {}),
  };
}
