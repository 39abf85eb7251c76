/**
 * The side panel UI. Imports only src/protocol; renders from host messages, sends user intents.
 * Every message from the host is validated; an invalid one is shown and reported, never rendered.
 */
import './style.css';
import { createHostDispatcher, HostHandlers } from '../src/protocol/dispatch';
import { PROTOCOL_VERSION, type ChatItemOf, type HistoryView } from '../src/protocol/messages';
import { RESTRICTED_BANNER } from '../src/protocol/restricted-mode';
import { Attachments } from './attachments';
import { ChatView } from './chat-view';
import { EmptyStateExtras } from './example-prompts';
import { Composer } from './composer';
import { h, keepingFocus } from './dom';
import { errorBanner, sessionLines } from './top-bar';
import { renderFirstRun, setupHint } from './first-run';
import { renderHistory } from './history-view';
import { renderWorkSoFar } from './work-so-far';
import { FREED_VISIBLE_MS, renderMeter } from './meter';
import { promptExtras } from './prompt-edit';
import { throttled } from './schedule';
import type { ComposerIntent } from './slash';
import { saveUi, state } from './state';
import { request, requests, send } from './vscode-api';

const app = document.getElementById('app')!;
const top = h('header', { class: 'hr-top' });
const banner = h('div', { class: 'hr-banner' });
const main = h('main', { class: 'hr-main' });
/** "Work so far" (the work ledger), between the banner and the chat. */
let work: HTMLElement = h('div', { hidden: true });
const expanded = new Set(state.ui.expanded);
/** The empty state's example prompts (they fill the box, to edit or send) and Test connection. */
const emptyState = new EmptyStateExtras((text) => (composer.restore(text), composer.focus()));

const chat = new ChatView(
  state.transcript,
  {
    expanded,
    onToggle: (id, open) => {
      if (open) expanded.add(id);
      else expanded.delete(id);
      saveUi({ expanded: [...expanded] });
    },
    baseUrl: () => state.snapshot?.config.baseUrl,
    examples: emptyState.element,
  },
  (beforeId) => void askOlder(beforeId),
);

const composer = new Composer({
  draft: state.ui.draft,
  onDraft: (draft) => saveUi({ draft }),
  onIntent: (intent) => runIntent(intent),
  onStop: () => stopTurn(),
});
/** Pasted and dropped images, shown above the prompt box until they go with the next prompt. */
const attachments = new Attachments(composer.element, (text) => announce(text));

const { mentions, editor, ...prompts } = promptExtras(composer.element, chat.element);

/** Stop drops the queued messages on the host: give them back to the prompt box instead of losing them. */
function stopTurn(): void {
  send({ type: 'prompt/stop' });
  composer.giveBackQueued();
}

/** Polite announcements for screen readers (an approval is waiting, the turn stopped). */
const announcer = h('div', { class: 'hr-sr-only', role: 'status', 'aria-live': 'polite', 'data-testid': 'announcer' });
const announce = (text: string) => {
  announcer.textContent = '';
  requestAnimationFrame(() => (announcer.textContent = text));
};

app.replaceChildren(top, banner, work, main, chat.newActivity, composer.element, announcer);

function renderWork(): void {
  const next = renderWorkSoFar(state.ledger, state.ui.workOpen, (open) => saveUi({ workOpen: open }));
  work.replaceWith(next);
  work = next;
}

/** A compaction runs or ended: Send, Compact and Clear wait for it. */
function setCompacting(compacting: boolean): void {
  if (state.compacting === compacting) return;
  state.compacting = compacting;
  composer.setBlocked(compacting);
  renderTop();
}

// Escape stops the running turn from anywhere in the panel (the composer's own Escape closes its
// completion list first and marks the event handled).
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || e.defaultPrevented || !state.running) return;
  e.preventDefault();
  stopTurn();
});

composer.takeFocusOnPanelEntry();

function runIntent(intent: ComposerIntent): boolean {
  if (state.compacting && (intent.kind === 'prompt' || intent.kind === 'compact' || intent.kind === 'clear')) {
    // The draft stays in the box until the compaction is done or cancelled.
    announce('A compaction is running: wait for it, or cancel it.');
    return false;
  }
  switch (intent.kind) {
    case 'prompt': {
      if (attachments.refusal()) return (announce(attachments.refusal()!), false);
      prompts.send(intent.text, attachments.take());
      // While a turn runs the host queues it for the agent's next step (steering).
      if (state.running) composer.queue(intent.text);
      showView('chat');
      chat.follow();
      return true;
    }
    case 'compact':
      send({ type: 'context/compact', focus: intent.focus });
      return true;
    case 'clear':
      send({ type: 'context/clear' });
      return true;
    case 'new':
      send({ type: 'session/new' });
      showView('chat');
      return true;
    case 'history':
      showView('history');
      return true;
    case 'empty':
      return false;
  }
}

function showView(view: 'chat' | 'history'): void {
  if (state.ui.view === view) return;
  saveUi({ view });
  if (view === 'history') void askHistory();
  renderTop();
  renderMain();
}

let freedTimer: ReturnType<typeof setTimeout> | undefined;
function renderTop(): void {
  const s = state.snapshot;
  const meter = renderMeter(state.meter, state.running || state.compacting, state.ui.view === 'history', {
    compact: () => send({ type: 'context/compact' }),
    clear: () => send({ type: 'context/clear' }),
    toggleHistory: () => showView(state.ui.view === 'history' ? 'chat' : 'history'),
  });
  top.replaceChildren(meter, ...sessionLines(s));
  clearTimeout(freedTimer);
  const freed = state.meter?.freed;
  if (freed) {
    const left = freed.at + FREED_VISIBLE_MS - Date.now();
    if (left > 0) freedTimer = setTimeout(renderTop, left + 50);
  }
}

function renderBanner(): void {
  const e = state.error;
  if (!e) {
    banner.replaceChildren();
    return;
  }
  banner.replaceChildren(
    errorBanner(e, () => {
      dismissError();
      composer.focus();
    }),
  );
}

function dismissError(): void {
  if (!state.error) return;
  state.error = undefined;
  renderBanner();
}

function renderMain(): void {
  const s = state.snapshot;
  if (s && s.config.hasApiKey === false) {
    main.replaceChildren(renderFirstRun(s.config));
    composer.setEnabled(false, setupHint(s.config));
    return;
  }
  if (s) attachments.setModel(s.config.model, s.config.modelInfo?.images);
  if (s) emptyState.setConfig(s.config);
  // Restricted Mode: history and meter stay, the composer says why it is read-only.
  composer.setEnabled(!!s && s.trusted, s ? RESTRICTED_BANNER : 'Connecting to Headroom…');
  composer.setRunning(state.running);
  if (state.ui.view === 'history') keepingFocus(main, () => main.replaceChildren(renderHistory(state.history, renderMain)));
  else if (!chat.element.isConnected) {
    main.replaceChildren(chat.element);
    chat.shown();
  }
}

let restoreScroll = state.ui.scrollTop;
const changed = new Set<string>();
/** An approval card whose Approve button takes focus once it is rendered. */
let focusNext: string | undefined;
const flushChat = throttled(() => {
  const ids = [...changed];
  changed.clear();
  chat.update(ids);
  editor.markLast();
  if (focusNext) {
    chat.element.querySelector<HTMLButtonElement>(`[data-id="${CSS.escape(focusNext)}"] button`)?.focus();
    focusNext = undefined;
  }
});

chat.element.addEventListener('scroll', () => {
  const e = chat.element;
  saveUi({ scrollTop: e.scrollHeight - e.scrollTop - e.clientHeight < 40 ? null : e.scrollTop });
});

const handlers: HostHandlers = {
  reply: (m) => requests.settle(m),
  'session/snapshot': (m) => {
    state.snapshot = m.snapshot;
    state.transcript.reset(m.snapshot.items ?? []);
    state.meter = m.snapshot.meter ?? null;
    state.running = m.snapshot.running ?? false;
    state.compacting = m.snapshot.compacting ?? false;
    composer.setBlocked(state.compacting);
    state.ledger = m.snapshot.ledger ?? null;
    renderWork();
    // A new, cleared, opened or restored session: an old banner no longer applies.
    dismissError();
    chat.element.setAttribute('aria-busy', String(state.running));
    changed.clear();
    // The first snapshot after the webview was re-created goes back to where the user was reading.
    chat.reset(restoreScroll, m.snapshot.hasOlder ?? false);
    editor.markLast();
    restoreScroll = null;
    renderTop();
    renderMain();
    if (state.ui.view === 'history') void askHistory();
    document.body.dataset.ready = 'true';
  },
  'chat/ops': (m) => {
    for (const op of m.ops) {
      const id = state.transcript.apply(op);
      if (id !== undefined) changed.add(id);
      if (op.op === 'append' && op.item.kind === 'approval' && op.item.state === 'pending') awaitApproval(op.item.id, op.item.request);
      if (op.op === 'append' && op.item.kind === 'user') composer.taken(op.item.text);
    }
    flushChat();
  },
  'turn/state': (m) => {
    setCompacting(m.compacting ?? false);
    if (state.running === m.running) return;
    const stopped = state.running && !m.running;
    state.running = m.running;
    if (m.running) dismissError();
    // Screen readers announce the finished answer once instead of every streamed re-render.
    chat.element.setAttribute('aria-busy', String(m.running));
    composer.setRunning(m.running);
    renderTop();
    // Focus was on Stop (now hidden) or nowhere: give it back to the prompt box.
    if (stopped && (document.activeElement === document.body || document.activeElement?.closest('.hr-composer'))) composer.focus();
  },
  'session/info': (m) => {
    if (!state.snapshot) return;
    state.snapshot = { ...state.snapshot, session: m.session };
    renderTop();
  },
  'context/usage': (m) => {
    state.meter = m.meter;
    renderTop();
  },
  'history/list': (m) => showHistory(m.history),
  'ledger/update': (m) => {
    state.ledger = m.ledger;
    renderWork();
  },
  'host/ok': () => dismissError(),
  'mention/add': (m) => mentions.add(m.mention),
  'prompt/fill': (m) => editor.giveBack(m.text, m.mentions ?? []),
  'host/error': (m) => {
    state.error = { message: m.message, detail: m.detail };
    renderBanner();
  },
};

/** The page before `beforeId`; one for a list that was replaced meanwhile (another session) has no place: only the wait ends. */
async function askOlder(beforeId: string): Promise<void> {
  // A failed page leaves "Loading…" (the host shows why in the banner).
  const page = await request('transcript/older', { beforeId }).catch(() => undefined);
  if (!page) return;
  const fits = state.transcript.items[0]?.id === beforeId;
  chat.prepend(fits ? state.transcript.prepend(page.items) : [], page.hasOlder);
}

/** The sessions and snapshots, asked for when the history view opens. */
async function askHistory(): Promise<void> {
  const answer = await request('session/list', {}).catch(() => undefined);
  if (answer) showHistory(answer.history);
}

function showHistory(history: HistoryView): void {
  state.history = history;
  if (state.ui.view === 'history') renderMain();
}

/**
 * A new approval: announced, and its Approve button takes focus unless the user is typing a draft
 * (their text stays where it is; the announcement still says what waits).
 */
function awaitApproval(id: string, request: ChatItemOf<'approval'>['request']): void {
  const what =
    request.kind === 'edit'
      ? `${request.isNew ? 'create' : 'edit'} ${request.path}`
      : request.kind === 'command'
        ? `run ${request.command}`
        : request.kind === 'secret'
          ? `read ${request.path}, which looks like a secret`
          : `call a tool from ${request.origin}`;
  announce(`Approval needed: ${what}`);
  const typing = document.activeElement?.matches('textarea') && (document.activeElement as HTMLTextAreaElement).value.trim() !== '';
  if (typing) return;
  // Focused once the (throttled) chat update has rendered the card: see flushChat.
  focusNext = id;
}

const dispatch = createHostDispatcher(
  handlers,
  (error) => {
    state.error = { message: 'The panel received a message it could not read.', detail: error };
    send({ type: 'webview/error', message: error });
    renderBanner();
  },
  (err, type) => send({ type: 'webview/error', message: `Rendering "${type}" failed: ${String(err)}`.slice(0, 10_000) }),
);

window.addEventListener('message', (event: MessageEvent<unknown>) => void dispatch(event.data));
window.addEventListener('error', (e) => send({ type: 'webview/error', message: String(e.message).slice(0, 10_000) }));

renderTop();
renderMain();
send({ type: 'webview/ready', protocolVersion: PROTOCOL_VERSION });
