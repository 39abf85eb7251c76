/** The session's model as the panel header shows it (view model for `ConfigView.modelInfo`). Pure. */
import { providerEntry } from '../common/provider-catalogue';
import { acceptsImages, findModel } from '../context/models';
import type { ThinkingLimits } from '../context/thinking';
import { formatTokens, formatUsdRate } from '../protocol/format';
import type { ConfigView } from '../protocol/view-models';

/**
 * Window budgeted to (after settings and server reports), price per million input / output tokens
 * from the model table, and the thinking level when a budget is reserved for it.
 */
export function modelInfoView(limits: ThinkingLimits, thinking: string): NonNullable<ConfigView['modelInfo']> {
  // VS Code's models are paid through the extension that offers them: the table's price is not theirs.
  const price = providerEntry(limits.provider).endpoint === 'vscode' ? undefined : findModel(limits.model)?.price;
  const imagesField = (images: boolean | undefined) => (images === undefined ? {} : { images });
  return {
    window: formatTokens(limits.contextWindow),
    ...(price ? { price: `${formatUsdRate(price.input)} / ${formatUsdRate(price.output)} per M tokens` } : {}),
    ...(limits.thinkingBudget > 0 ? { thinking } : {}),
    ...imagesField(acceptsImages(limits.model, limits.provider)),
  };
}
