import * as vscode from 'vscode';
import { modelOptions, type LanguageModelInfo, type ServerModelWindow, type ModelChoice, type ModelOption } from '../context/model-choice';
import type { ThinkingLevel, ThinkingOffer } from '../context/thinking';
import type { ProviderModelInfo } from '../providers/model-info';
import { providerEntry, type ProviderId } from '../common/provider-catalogue';
import { formatTokens } from '../protocol/format';
import { withoutIcons } from '../common/single-line';

const providerLabel = (p: ProviderId) => providerEntry(p).label;

/** What the picker needs to know besides the current choice. */
export interface ModelPickerInput {
  current: ModelChoice;
  /** The configured OpenAI-compatible base URL, if any. */
  serverUrl: string | undefined;
  /** The models that server lists. */
  serverModels: readonly string[];
  /** The window the server reported for the current model, if known. */
  serverWindow?: number;
  /** What the server said of each listed model's window. */
  serverWindows?: ReadonlyMap<string, ServerModelWindow>;
  /** What each vendor API listed for its key (others come from the model table). */
  vendorModels?: Partial<Record<ProviderId, readonly ProviderModelInfo[]>>;
  /** The thinking levels a model offers and what each sends (by what its provider said, else the table). */
  thinkingFor: (provider: ProviderId, model: string) => readonly ThinkingOffer[];
}

type OptionItem = vscode.QuickPickItem & { option?: ModelOption; other?: true };

/** The chat models VS Code offers now (none when the API is unavailable or no extension provides one). */
async function languageModels(): Promise<LanguageModelInfo[]> {
  try {
    const models = await vscode.lm.selectChatModels();
    return models.map((m) => ({ id: m.id, name: m.name, vendor: m.vendor, maxInputTokens: m.maxInputTokens }));
  } catch {
    return [];
  }
}

/**
 * `Headroom: Select Model` and the panel header's model button: a quick pick of provider + model
 * (window and price per million tokens shown, grouped by provider, the current one marked), then
 * the thinking level where the model reasons. Resolves to the new choice, or undefined when dismissed.
 */
export async function pickModel(input: ModelPickerInput): Promise<ModelChoice | undefined> {
  const options = modelOptions({ ...input, languageModels: await languageModels() });
  const items: OptionItem[] = [];
  let group: ProviderId | undefined;
  for (const option of options) {
    if (option.provider !== group) {
      group = option.provider;
      items.push({ label: providerLabel(group), kind: vscode.QuickPickItemKind.Separator });
    }
    // Ids come from a server: no icons, no line breaks (only our own `$(check)` marks the current one).
    const label = withoutIcons(option.label);
    items.push({ label: option.current ? `$(check) ${label}` : label, description: withoutIcons(option.description), option });
  }
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  items.push({ label: vscode.l10n.t('$(edit) Other model id…'), description: providerLabel(input.current.provider), other: true });

  const picked = await pickOne(items, {
    title: vscode.l10n.t('Headroom: Select Model'),
    placeholder: vscode.l10n.t('The session keeps the model you pick; new sessions start with it'),
    matchOnDescription: true,
    active: items.find((i) => i.option?.current),
  });
  if (!picked) return undefined;
  let provider = input.current.provider;
  let model: string;
  if (picked.option) {
    provider = picked.option.provider;
    model = picked.option.model;
  } else {
    const typed = await vscode.window.showInputBox({
      title: vscode.l10n.t('Model id ({0})', providerLabel(provider)),
      value: input.current.model,
      validateInput: (v) => (v.trim() && !/\s/.test(v.trim()) ? undefined : vscode.l10n.t('A model id has no spaces, e.g. llama3.1:8b')),
    });
    if (!typed) return undefined;
    model = typed.trim();
  }
  const thinking = await pickThinking({ provider, model }, input.thinkingFor(provider, model), input.current.thinking);
  return thinking === undefined ? undefined : { provider, model, thinking };
}

/** The thinking level for a model that reasons ('off' without asking for one that does not). */
async function pickThinking(
  choice: Pick<ModelChoice, 'provider' | 'model'>,
  offers: readonly ThinkingOffer[],
  current: ThinkingLevel,
): Promise<ThinkingLevel | undefined> {
  if (!offers.length) return 'off';
  // Worded by what a request at the level sends: a budget model's tokens, an adaptive or effort model's effort.
  const describe = ({ level, request }: ThinkingOffer) =>
    level === 'off'
      ? vscode.l10n.t('No thinking')
      : request?.mode === 'budget'
        ? vscode.l10n.t('{0} thinking tokens, counted in the output reserved from the window', formatTokens(request.budgetTokens))
        : vscode.l10n.t('Effort {0}: the model decides how much to think, inside its output limit', level);
  const items = offers.map((o) => ({
    label: o.level === current ? `$(check) ${o.level}` : o.level,
    description: describe(o),
    level: o.level,
  }));
  const picked = await pickOne(items, {
    title: vscode.l10n.t('Headroom: Thinking for {0}', withoutIcons(choice.model)),
    placeholder: vscode.l10n.t('How much the model may reason'),
    active: items.find((i) => i.level === current),
  });
  return picked?.level;
}

/**
 * A single-choice quick pick whose highlighted entry starts on `active` (the current one), so Enter
 * keeps it and the arrow keys move from there. Resolves undefined when dismissed.
 */
function pickOne<T extends vscode.QuickPickItem>(
  items: T[],
  options: { title: string; placeholder: string; matchOnDescription?: boolean; active?: T },
): Promise<T | undefined> {
  const qp = vscode.window.createQuickPick<T>();
  qp.title = options.title;
  qp.placeholder = options.placeholder;
  qp.matchOnDescription = options.matchOnDescription ?? false;
  qp.items = items;
  if (options.active) qp.activeItems = [options.active];
  return new Promise<T | undefined>((resolve) => {
    let chosen: T | undefined;
    qp.onDidAccept(() => {
      chosen = qp.selectedItems[0] ?? qp.activeItems[0];
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
  });
}
