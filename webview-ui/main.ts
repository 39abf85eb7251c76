/**
 * The side panel UI. Imports only src/protocol; renders from host messages, sends user intents.
 * Every message from the host is validated; an invalid one is shown and reported, never rendered.
 */
import './style.css';
import { HostToWebview, parseHostMessage, PROTOCOL_VERSION, SnapshotView } from '../src/protocol/messages';
import { h } from './dom';
import { send } from './vscode-api';

const app = document.getElementById('app')!;
let snapshot: SnapshotView | undefined;
let error: { message: string; detail?: string } | undefined;

const PROVIDER_LABEL: Record<string, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  'openai-compatible': 'OpenAI-compatible',
};

function render(): void {
  const children: Node[] = [];
  children.push(
    h(
      'header',
      { class: 'hr-header' },
      h('h1', { class: 'hr-title' }, 'Headroom'),
      snapshot ? h('span', { class: 'hr-badge', title: 'Extension version' }, `v${snapshot.extensionVersion}`) : null,
    ),
  );
  if (error) {
    children.push(
      h(
        'div',
        { class: 'hr-error', role: 'alert' },
        h('strong', {}, error.message),
        error.detail ? h('div', { class: 'hr-error-detail' }, error.detail) : null,
        h('button', { class: 'hr-link', 'aria-label': 'Dismiss error', id: 'hr-dismiss' }, 'Dismiss'),
      ),
    );
  }
  if (!snapshot) {
    children.push(h('p', { class: 'hr-muted', role: 'status' }, 'Connecting to Headroom…'));
  } else {
    const s = snapshot;
    const rows: Array<[string, string]> = [
      ['Session', `${s.session.title} · ${s.session.messageCount} messages`],
      ['Provider', PROVIDER_LABEL[s.config.provider] ?? s.config.provider],
      ['Model', s.config.model],
      ['Workspace', s.workspaceName ?? 'No folder open'],
      ['Storage', s.storageAvailable ? 'Workspace storage' : 'Unavailable (open a folder to keep sessions)'],
      ['Trust', s.trusted ? 'Trusted: edits and commands allowed with approval' : 'Restricted: no edits or commands'],
    ];
    children.push(
      h(
        'section',
        { class: 'hr-card', 'aria-label': 'Session status' },
        h('h2', {}, 'Status'),
        h(
          'dl',
          { class: 'hr-status', 'data-testid': 'status' },
          ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
        ),
        h('div', { class: 'hr-actions' }, h('button', { id: 'hr-show-log', 'aria-label': 'Show the Headroom log' }, 'Show Log')),
      ),
    );
  }
  app.replaceChildren(...children);
  document.getElementById('hr-dismiss')?.addEventListener('click', () => {
    error = undefined;
    render();
  });
  document.getElementById('hr-show-log')?.addEventListener('click', () => send({ type: 'command/run', command: 'showLog' }));
}

const handlers: { [T in HostToWebview['type']]: (m: Extract<HostToWebview, { type: T }>) => void } = {
  'session/snapshot': (m) => {
    snapshot = m.snapshot;
    document.body.dataset.ready = 'true';
    render();
  },
  'host/error': (m) => {
    error = { message: m.message, detail: m.detail };
    render();
  },
};

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) {
    error = { message: 'The panel received a message it could not read.', detail: parsed.error };
    send({ type: 'webview/error', message: parsed.error });
    render();
    return;
  }
  const m = parsed.message;
  (handlers[m.type] as (x: HostToWebview) => void)(m);
});

window.addEventListener('error', (e) => send({ type: 'webview/error', message: String(e.message) }));

render();
send({ type: 'webview/ready', protocolVersion: PROTOCOL_VERSION });
