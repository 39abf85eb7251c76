import * as vscode from 'vscode';
import type { AgentEvent, CompactionReport } from '../agent/events';
import type { LedgerState } from '../agent/ledger';
import type { SpendState } from '../agent/spend-recorder';
import type { RestoreOutcome, TurnChanges } from '../app/host-actions';
import { Disposable, toDisposable } from '../common/disposable';
import { Emitter } from '../common/emitter';
import { errorMessage } from '../common/errors';
import type { BudgetViewModel } from '../context/budget';
import type { Message } from '../providers/types';
import { createWebviewDispatcher, WebviewHandlers } from '../protocol/dispatch';
import { answerRequest, HostToWebview, PROTOCOL_VERSION, type Mention, type RequestHandlers } from '../protocol/messages';
import type { ApprovalDecision, ApprovalRequest } from '../tools/ports';
import { ChatPresenter } from './chat-presenter';
import type { CompactionHistory } from './compaction-cards';
import { toHistoryView } from './history-view';
import { intentFailure } from './intent-failures';
import { toLedgerView } from './ledger-view';
import { receiptPin } from './receipt-view';
import { changesItem, rewindChat } from './turn-changes';
import { MessageBatcher } from './message-batcher';
import type { ChatViewDeps } from './panel-deps';
import { renderWebviewHtml } from './webview-html';

export { CHAT_VIEW_ID } from './view-ids';
export type { ChatViewDeps } from './panel-deps';

/**
 * The side panel's webview view. Owns no agent state: it validates what the webview sends, hands it
 * to the deps, and posts view models back — events through the presenter, batched. Everything it
 * registers is disposed with it.
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private readonly _onDidPost = this._register(new Emitter<HostToWebview>());
  /** Fires for every message posted to the webview (used by integration tests and the log). */
  readonly onDidPost = this._onDidPost.event;
  private readonly dispatch: (raw: unknown) => Promise<void>;
  private readonly batcher = new MessageBatcher((m) => void this.post(m));
  private readonly presenter = new ChatPresenter((m) => this.batcher.enqueue(m));
  /** The webview said `webview/ready` (a message posted before that is lost). */
  private ready = false;
  /** Mentions added from the editor, posted once the webview is ready. */
  private readonly pendingMentions: Mention[] = [];

  constructor(private readonly deps: ChatViewDeps) {
    super();
    this._register({ dispose: () => this.batcher.dispose() });
    const d = deps.actions;
    // An intent that worked clears the banner's error about an earlier one.
    const ok = (p: Promise<void>) => p.then(() => this.ok());
    const requests: RequestHandlers = {
      'session/list': async () => ({ history: toHistoryView(await d.sessions.list()) }),
      'transcript/older': (m) => this.presenter.olderPage(m.beforeId),
      'config/test': () => d.config.testConnection(),
      'mention/search': async (m) => ({ options: await d.prompt.searchMentions(m.query) }),
    };
    const handlers: WebviewHandlers = {
      'webview/ready': async (m) => {
        if (m.protocolVersion !== PROTOCOL_VERSION) {
          this.showError(
            `The panel speaks protocol v${m.protocolVersion} but the extension speaks v${PROTOCOL_VERSION}. Reload the window.`,
          );
          return;
        }
        await this.postSnapshot();
        this.ready = true;
        this.flushMentions();
      },
      'webview/error': (m) => deps.log.error(`[webview] ${m.message}`),
      // The answer goes in order with the chat's updates (a page lands above what was shown before it).
      request: async (m) =>
        this.batcher.enqueue(await answerRequest(requests, m, (err, method) => this.showError(intentFailure(method, errorMessage(err))))),
      'prompt/submit': (m) => d.prompt.submit(m.text, m.images, m.mentions),
      'prompt/resend': (m) => ok(d.prompt.resend(m.text, m.images, m.mentions)),
      'prompt/retry': () => d.prompt.retry(),
      'mention/open': (m) => d.prompt.openMention(m.path, m.line),
      'prompt/stop': () => d.prompt.stop(),
      'context/compact': (m) => ok(d.context.compact(m.focus?.trim() || undefined)),
      'context/clear': () => ok(d.sessions.clear()),
      'clear/undo': () => ok(d.sessions.undoClear()),
      'session/new': () => ok(d.sessions.create()),
      'session/open': (m) => ok(d.sessions.open(m.id)),
      'session/rename': (m) => ok(d.sessions.rename(m.id, m.title)),
      'session/delete': (m) => ok(d.sessions.delete(m.id)),
      'snapshot/save': (m) => ok(d.context.saveSnapshot(m.name || undefined)),
      'snapshot/restore': (m) => ok(d.context.restoreSnapshot(m.id)),
      'compaction/undo': () => ok(d.context.undoCompaction()),
      'receipt/pin': async (m) => {
        const item = this.presenter.receiptItem(m.id, m.index);
        if (!item) return;
        await ok(d.pins.pin(receiptPin(item)));
        this.presenter.receiptPinned(m.id, m.index);
      },
      'compaction/cancel': () => d.context.cancelCompaction(),
      'approval/respond': (m) =>
        d.approvals.approve(
          m.id,
          m.approved
            ? { approved: true, forSession: m.forSession === true }
            : { approved: false, reason: m.reason?.trim() || 'The user rejected it.' },
        ),
      'approval/diff': (m) => d.approvals.showDiff(m.id),
      'result/open': (m) => d.results.open(m.refId),
      'checkpoint/diff': (m) => d.checkpoints.openDiff(m.turn, m.path),
      'checkpoint/restore': (m) => ok(d.checkpoints.restore(m.turn)),
      'config/update': (m) => d.config.update({ provider: m.provider, baseUrl: m.baseUrl }),
      'command/run': (m) => d.config.runCommand(m.command),
      'code/copy': async (m) => {
        await vscode.env.clipboard.writeText(m.text);
      },
      'code/insert': (m) => insertCode(m.text, m.language),
    };
    this.dispatch = createWebviewDispatcher(
      handlers,
      (error) => this.showError('The panel sent a message Headroom could not accept.', error),
      (err, type) => this.showError(intentFailure(type, errorMessage(err))),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const media = vscode.Uri.joinPath(this.deps.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = renderWebviewHtml(view.webview, media);
    // The view is resolved again each time it is shown after being disposed: its listeners go with it.
    const listeners: vscode.Disposable[] = [view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw))];
    const release = this._register(
      toDisposable(() => {
        for (const l of listeners.splice(0)) l.dispose();
      }),
    );
    listeners.push(
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
        release.dispose();
      }),
    );
  }

  /** Entry point for every message from the webview. Never throws. */
  receive(raw: unknown): Promise<void> {
    return this.dispatch(raw);
  }

  // ------------------------------------------------------------ push API (called by the host)

  /** Every event of the agent loop, in order. Never throws; text deltas are batched (≤ 30 posts/s). */
  pushEvent(event: AgentEvent): void {
    this.presenter.handle(event);
    // A compaction changes what is in the context: the session line's count follows at once.
    if (event.type === 'compaction') void this.refreshSessionInfo();
    if (event.type !== 'turn_end') return;
    // A turn that changed files ends with its list of changes and Restore checkpoint.
    const changes = this.deps.actions.checkpoints.turnChanges();
    if (changes) this.showTurnChanges(changes);
    void this.refreshSessionInfo();
  }

  /** Re-sends the session's title and message count (after a turn; call it after a rename too). */
  async refreshSessionInfo(): Promise<void> {
    try {
      const { session } = await this.deps.snapshot();
      this.batcher.enqueue({ type: 'session/info', session });
    } catch (err) {
      this.deps.log.warn(`Could not refresh the session info: ${errorMessage(err)}`);
    }
  }

  /** The meter outside a turn (after clear, open, restore): the context engine's view model. */
  pushBudget(budget: BudgetViewModel): void {
    this.presenter.setBudget(budget);
  }

  /**
   * A compaction that ran outside a turn (the Compact button, `/compact`, the palette): adds its
   * result to the chat and shows "freed …" on the meter. Call it after `loadTranscript`/`pushBudget`
   * (a transcript reload replaces the chat items). Compactions inside a turn arrive via `pushEvent`.
   */
  showCompaction(report: CompactionReport): void {
    this.presenter.handle({ type: 'compaction', report });
    void this.refreshSessionInfo();
  }

  /** The loop breaker paused auto-compaction (its reason) or resumed it (null). */
  setAutoCompactionPaused(reason: string | null): void {
    this.presenter.setPausedReason(reason);
  }

  /**
   * Replaces the transcript (session opened, started or cleared) and re-sends the panel. `history`:
   * the session's stored compactions, shown as cards above it (an opened session).
   */
  async loadTranscript(messages: readonly Message[], history?: CompactionHistory): Promise<void> {
    this.presenter.load(messages, history);
    await this.postSnapshot();
  }

  /**
   * The context was replaced by a restore, an undo or a clear: the chat keeps everything it shows and marks
   * what is no longer in the model's context, then the new context follows (an undo of the newest
   * compaction only takes its divider away).
   */
  async continueTranscript(messages: readonly Message[], why: 'restore' | 'undo' | 'clear' | 'unclear'): Promise<void> {
    this.presenter.continueWith(messages, why);
    await this.postSnapshot();
  }

  /** The files the turn that just ended changed (its checkpoint): "Changes in this turn". */
  showTurnChanges(changes: TurnChanges): void {
    // One card per stored turn (turn numbers never repeat within a session).
    this.presenter.put(changesItem(`ch${changes.turn}`, changes));
  }

  /**
   * A turn's checkpoint was restored: the rewound turns leave the chat (each message shows once), a note
   * says what was done, and the turn's prompt goes back to the message box. When the rewound turns are
   * not all shown (a page not loaded), the session is shown again from the store (`history`).
   */
  async rewindTranscript(messages: readonly Message[], outcome: RestoreOutcome, history: () => Promise<CompactionHistory>): Promise<void> {
    const plan = rewindChat(this.presenter.transcript.items, outcome, `rw${outcome.turn}`);
    if (plan) {
      for (const id of plan.remove) this.presenter.remove(id);
      this.presenter.put(plan.note);
    } else this.presenter.load(messages, await history());
    await this.postSnapshot();
    if (plan?.prompt) this.batcher.enqueue({ type: 'prompt/fill', ...plan.prompt });
  }

  /** Edit-and-resend: the last prompt and its answer leave the chat; the edited prompt follows as a new turn. */
  dropLastTurn(): void {
    for (const id of this.presenter.transcript.idsFromLastUser()) this.presenter.remove(id);
  }

  /** Whether the session's compactions are stored, so a compaction card's Undo can work. */
  setUndoAvailable(available: boolean): void {
    this.presenter.setUndoAvailable(available);
  }

  /** What the session spent changed: the meter's cost shows the session's total, not the window's. */
  showSpend(state: SpendState): void {
    this.presenter.setSpend(state);
  }

  /** The work ledger changed: the "Work so far" section shows it. */
  showLedger(state: LedgerState): void {
    this.presenter.setLedger(toLedgerView(state));
  }

  /** Shows Approve / Reject (and View diff for edits) in the chat for a request the broker holds. */
  showApproval(id: string, request: ApprovalRequest): void {
    this.presenter.showApproval(id, request);
  }

  /** The request was decided (here, in the notification, or by stopping the turn). */
  settleApproval(id: string, decision: ApprovalDecision, cancelled = false): void {
    this.presenter.settleApproval(id, decision, cancelled);
  }

  /** Re-reads the session list and snapshots and sends them to the history view. */
  async refreshHistory(): Promise<void> {
    try {
      const history = toHistoryView(await this.deps.actions.sessions.list());
      this.batcher.enqueue({ type: 'history/list', history });
    } catch (err) {
      this.showError(`Could not read the session history: ${errorMessage(err)}`);
    }
  }

  /** Sends everything the panel shows; queued updates are dropped because the snapshot contains them. */
  async postSnapshot(): Promise<void> {
    try {
      const base = await this.deps.snapshot();
      const view = this.presenter.view();
      this.batcher.discard();
      await this.post({ type: 'session/snapshot', snapshot: { ...base, ...view } });
    } catch (err) {
      this.showError(`Could not build the session view: ${errorMessage(err)}`);
    }
  }

  /** "Add Selection to Headroom": the mention goes into the composer (once the webview is ready). */
  addMention(mention: Mention): void {
    this.pendingMentions.push(mention);
    if (this.ready) this.flushMentions();
  }

  private flushMentions(): void {
    for (const mention of this.pendingMentions.splice(0)) this.batcher.enqueue({ type: 'mention/add', mention });
  }

  /** Whether the panel is on screen (approvals then need no notification). */
  get isVisible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Logs an error and shows it in the panel's banner. */
  showError(message: string, detail?: string): void {
    this.deps.log.error(detail ? `${message} ${detail}` : message);
    this.batcher.flush();
    void this.post({ type: 'host/error', message, detail });
  }

  /** The last intent worked: an error in the banner about an earlier one is cleared. */
  private ok(): void {
    this.batcher.enqueue({ type: 'host/ok' });
  }

  private async post(message: HostToWebview): Promise<void> {
    this._onDidPost.fire(message);
    if (this.view) await this.view.webview.postMessage(message);
  }
}

/** Inserts a code block at the active editor's selection, or opens it in a new untitled editor. */
async function insertCode(text: string, language: string | undefined): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    await editor.edit((edit) => edit.replace(editor.selection, text));
    return;
  }
  const doc = await vscode.workspace.openTextDocument({ content: text, language: language || 'plaintext' });
  await vscode.window.showTextDocument(doc);
}
