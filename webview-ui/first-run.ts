/**
 * Shown until the provider has what it needs: pick a provider, then for a vendor API its key (VS Code
 * SecretStorage, through the Set API Key command), for a local server its address — the model then
 * comes from the server's own list (the host asks when it has several) and a key is optional, offered
 * as a link rather than a step. Every path leads somewhere; Test connection says whether it works.
 */
import { isProviderId, providerEntry } from '../src/common/provider-catalogue';
import type { ConfigView } from '../src/protocol/messages';
import { renderConnectionTest } from './connection-test';
import { h } from './dom';
import { send } from './vscode-api';

/** A server at a base URL: its address is what it needs, a key is optional. */
const atServer = (config: ConfigView) => isProviderId(config.provider) && providerEntry(config.provider).endpoint === 'server';

/** What the disabled message box says while the setup is shown. */
export function setupHint(config: ConfigView): string {
  return atServer(config) ? 'Save the server address above to start chatting.' : 'Set an API key above to start chatting.';
}

export function renderFirstRun(config: ConfigView): HTMLElement {
  const server = atServer(config);
  const select = h('select', { id: 'hr-provider', class: 'hr-select', 'aria-label': 'Provider' });
  // The choices come from the host's provider catalogue (the snapshot's view model).
  for (const p of config.providers) select.append(h('option', { value: p.id, selected: p.id === config.provider }, p.label));
  select.addEventListener('change', () => {
    const chosen = config.providers.find((p) => p.id === select.value);
    if (chosen) send({ type: 'config/update', provider: chosen.id });
  });
  const url = h('input', {
    id: 'hr-base-url',
    class: 'hr-text',
    type: 'url',
    value: config.baseUrl ?? '',
    placeholder: 'http://localhost:11434/v1',
    'aria-label': 'Base URL',
  });
  // For a server the address is the step that matters (primary); for a vendor it is only for proxies.
  const saveUrl = h('button', { class: server ? undefined : 'hr-secondary', 'aria-label': 'Save URL: the base URL above' }, 'Save URL');
  saveUrl.addEventListener('click', () => send({ type: 'config/update', baseUrl: url.value.trim() }));
  url.addEventListener('keydown', (e) => e.key === 'Enter' && saveUrl.click());
  const setKey = h(
    'button',
    { class: server ? 'hr-link' : undefined, 'aria-label': 'Set API Key…', 'data-testid': 'set-key' },
    'Set API Key…',
  );
  setKey.addEventListener('click', () => send({ type: 'command/run', command: 'setApiKey' }));
  const settings = h('button', { class: 'hr-link', 'aria-label': 'Open settings of Headroom' }, 'Open settings');
  settings.addEventListener('click', () => send({ type: 'command/run', command: 'openSettings' }));
  const provider = [h('label', { for: 'hr-provider', class: 'hr-label' }, '1. Provider'), select];
  const title = h('h2', {}, 'Set up Headroom');
  if (server)
    return h(
      'section',
      { class: 'hr-first-run', 'aria-label': 'Set up Headroom', 'data-testid': 'first-run', 'data-endpoint': 'server' },
      title,
      h(
        'p',
        {},
        'A local server (Ollama, LM Studio, llama.cpp, vLLM) needs only its address. Headroom then uses a model from the server’s own list and asks which one when it has several.',
      ),
      ...provider,
      h('label', { for: 'hr-base-url', class: 'hr-label' }, '2. Server address (base URL)'),
      h('div', { class: 'hr-actions' }, url, saveUrl),
      h('label', { class: 'hr-label' }, '3. Check it works'),
      renderConnectionTest(config),
      h('p', { class: 'hr-muted' }, 'Most local servers take no key. Yours asks for one? ', setKey, ' · ', settings),
    );
  return h(
    'section',
    { class: 'hr-first-run', 'aria-label': 'Set up Headroom', 'data-testid': 'first-run', 'data-endpoint': 'vendor' },
    title,
    h(
      'p',
      {},
      'Headroom needs a model provider and an API key. The key is kept in VS Code’s secret storage; ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment also work.',
    ),
    ...provider,
    h('label', { class: 'hr-label' }, '2. API key'),
    h('div', { class: 'hr-actions' }, setKey),
    h('label', { for: 'hr-base-url', class: 'hr-label' }, '3. Base URL (only for proxies)'),
    h('div', { class: 'hr-actions' }, url, saveUrl),
    h('p', { class: 'hr-muted' }, 'A local server? Pick “OpenAI-compatible server” above. ', settings),
    h('label', { class: 'hr-label' }, '4. Check it works'),
    renderConnectionTest(config),
  );
}
