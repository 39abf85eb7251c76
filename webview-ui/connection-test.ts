/**
 * Test connection: a button that asks the host for one small request to the configured provider and
 * shows what came back (✓ and who answered, or what failed, the URL and the next step). Used by the
 * first-run view and the empty state. The last result stays while the configuration is the same.
 */
import type { ConfigView, RequestOutput } from '../src/protocol/messages';
import { h } from './dom';
import { request } from './vscode-api';

type TestResult = RequestOutput<'config/test'>;

/** The configuration a result was for: a result about another one no longer applies. */
const configKey = (c: ConfigView) => JSON.stringify([c.provider, c.model, c.baseUrl ?? '', c.hasApiKey]);

let last: { key: string; result?: TestResult; testing: boolean } = { key: '', testing: false };
let current: { element: HTMLElement; config: ConfigView } | undefined;

function paint(el: HTMLElement, config: ConfigView): void {
  const mine = last.key === configKey(config) ? last : { testing: false, result: undefined };
  const button = h(
    'button',
    { class: 'hr-secondary', 'data-testid': 'test-connection', disabled: mine.testing, 'aria-describedby': 'hr-test-result' },
    mine.testing ? 'Testing…' : 'Test connection',
  );
  button.addEventListener('click', () => {
    last = { key: configKey(config), testing: true };
    // A failed request is shown in the banner by the host; the button is offered again.
    void request('config/test', {}).then(showConnectionResult, () => showConnectionResult(undefined));
    paint(el, config);
  });
  const r = mine.result;
  const result = h(
    'p',
    {
      id: 'hr-test-result',
      role: 'status',
      class: r ? (r.ok ? 'hr-test-ok' : 'hr-test-failed') : 'hr-muted',
      'data-testid': 'test-result',
      'data-ok': r ? String(r.ok) : undefined,
    },
    r ? `${r.ok ? '✓' : '✗'} ${r.message}` : mine.testing ? 'Sending one small request…' : '',
  );
  el.replaceChildren(h('div', { class: 'hr-actions' }, button), result);
}

/** The button and its result line for this configuration. */
export function renderConnectionTest(config: ConfigView): HTMLElement {
  const element = h('div', { class: 'hr-connection-test' });
  current = { element, config };
  paint(element, config);
  return element;
}

/** The host's answer to the last Test connection (undefined: none came). */
function showConnectionResult(result: TestResult | undefined): void {
  last = { ...last, testing: false, result };
  if (!current?.element.isConnected) return;
  paint(current.element, current.config);
  // The answer may land below the fold (a narrow panel, the empty state's examples above it).
  current.element.scrollIntoView({ block: 'nearest' });
}
