/**
 * Shown when no API key is set: pick a provider, set the key (VS Code SecretStorage, through the
 * Set API Key command), and a base URL for OpenAI-compatible servers. Every path leads somewhere.
 */
import type { ConfigView } from '../src/protocol/messages';
import { renderConnectionTest } from './connection-test';
import { h } from './dom';
import { send } from './vscode-api';

export function renderFirstRun(config: ConfigView): HTMLElement {
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
  const saveUrl = h('button', { class: 'hr-secondary', 'aria-label': 'Save URL: the base URL above' }, 'Save URL');
  saveUrl.addEventListener('click', () => send({ type: 'config/update', baseUrl: url.value.trim() }));
  url.addEventListener('keydown', (e) => e.key === 'Enter' && saveUrl.click());
  const setKey = h('button', { 'aria-label': 'Set API Key…', 'data-testid': 'set-key' }, 'Set API Key…');
  setKey.addEventListener('click', () => send({ type: 'command/run', command: 'setApiKey' }));
  const settings = h('button', { class: 'hr-link', 'aria-label': 'Open settings of Headroom' }, 'Open settings');
  settings.addEventListener('click', () => send({ type: 'command/run', command: 'openSettings' }));
  return h(
    'section',
    { class: 'hr-first-run', 'aria-label': 'Set up Headroom', 'data-testid': 'first-run' },
    h('h2', {}, 'Set up Headroom'),
    h(
      'p',
      {},
      'Headroom needs a model provider and an API key. The key is kept in VS Code’s secret storage; ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment also work.',
    ),
    h('label', { for: 'hr-provider', class: 'hr-label' }, '1. Provider'),
    select,
    h('label', { class: 'hr-label' }, '2. API key'),
    h('div', { class: 'hr-actions' }, setKey),
    h('label', { for: 'hr-base-url', class: 'hr-label' }, '3. Base URL (only for OpenAI-compatible servers or proxies)'),
    h('div', { class: 'hr-actions' }, url, saveUrl),
    h('p', { class: 'hr-muted' }, 'A local server needs only the base URL. ', settings),
    h('label', { class: 'hr-label' }, '4. Check it works'),
    renderConnectionTest(config),
  );
}
