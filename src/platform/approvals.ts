import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import { Emitter } from '../common/emitter';
import { newId } from '../common/ids';
import { ApprovalPolicy } from '../tools/approval-policy';
import type { ApprovalDecision, ApprovalPort, ApprovalRequest } from '../tools/ports';

export const PROPOSED_SCHEME = 'headroom-proposed';

/** What a request is about, for the log. */
function subject(r: ApprovalRequest): string {
  if (r.kind === 'edit') return r.path;
  if (r.kind === 'command') return r.command;
  if (r.kind === 'secret') return `${r.path} → ${r.target}`;
  return `${r.toolName} from ${r.origin}`;
}

/** A request waiting for the user, as the panel shows it. */
export interface PendingApproval {
  id: string;
  request: ApprovalRequest;
}

/**
 * Asks the user to approve edits and commands, unless the policy (settings and "Allow for this
 * session") already allows them. An edit opens VS Code's diff editor (current file ↔ proposed
 * content); every request is offered to the panel (`onDidRequest`), and a notification with
 * Approve / Reject is shown only while the panel is not visible; whichever answers first decides.
 * Aborting the turn rejects it. Never rejects its promise.
 */
export class ApprovalBroker extends Disposable implements ApprovalPort, vscode.TextDocumentContentProvider {
  private readonly pending = new Map<string, { request: ApprovalRequest; resolve: (d: ApprovalDecision) => void }>();
  private readonly proposed = new Map<string, string>();
  private readonly _onDidRequest = this._register(new Emitter<PendingApproval>());
  readonly onDidRequest = this._onDidRequest.event;
  private readonly _onDidSettle = this._register(new Emitter<{ id: string; decision: ApprovalDecision }>());
  readonly onDidSettle = this._onDidSettle.event;

  /**
   * @param policy what runs without asking; "Allow for this session" answers are added to it.
   * @param panelVisible whether the panel is on screen to show the request itself.
   */
  constructor(
    private readonly log: vscode.LogOutputChannel,
    readonly policy: ApprovalPolicy = new ApprovalPolicy(),
    private readonly panelVisible: () => boolean = () => false,
  ) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.proposed.get(uri.query) ?? '';
  }

  /** The requests still waiting (for a panel that was hidden and shown again). */
  list(): PendingApproval[] {
    return [...this.pending].map(([id, p]) => ({ id, request: p.request }));
  }

  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    if (this.policy.allows(request)) {
      this.log.info(`auto-approved ${request.kind} ${subject(request)} (settings or allowed for this session)`);
      return Promise.resolve({ approved: true, automatic: true });
    }
    const id = newId('apr');
    return new Promise<ApprovalDecision>((resolve) => {
      const onAbort = () => this.respond(id, { approved: false, reason: 'The turn was stopped.' });
      this.pending.set(id, {
        request,
        resolve: (d) => {
          signal.removeEventListener('abort', onAbort);
          resolve(d);
        },
      });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this._onDidRequest.fire({ id, request });
      void this.present(id, request);
    });
  }

  /** Settles a pending request (from the panel or the notification); later answers are ignored. */
  respond(id: string, decision: ApprovalDecision): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    this.proposed.delete(id);
    if (decision.approved && decision.forSession) this.policy.allowForSession(p.request);
    this.log.info(`approval ${id} (${p.request.kind} ${subject(p.request)}): ${decision.approved ? 'approved' : 'rejected'}`);
    this._onDidSettle.fire({ id, decision });
    // Close the diff BEFORE the tool acts: the diff's left side is the file's own model, and closing it
    // while the approved WorkspaceEdit is being applied and saved lost the edit.
    void this.closeDiff(id).finally(() => p.resolve(decision));
    return true;
  }

  /** Opens the diff for an edit. Exposed so the panel's "View diff" can reopen it. */
  async showDiff(id: string): Promise<void> {
    const p = this.pending.get(id);
    if (!p || p.request.kind !== 'edit') return;
    const r = p.request;
    this.proposed.set(id, r.newContent);
    const right = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${r.path}`, query: id });
    const left =
      r.oldContent === undefined
        ? vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${r.path}`, query: `${id}-empty` })
        : vscode.Uri.joinPath(vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file('/'), r.path);
    const title = vscode.l10n.t('{0} ↔ proposed by Headroom', r.path);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
  }

  /** Closes the diff tab of a decided edit (the file itself now shows the outcome). */
  private async closeDiff(id: string): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter(
        (t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSED_SCHEME && t.input.modified.query === id,
      );
    if (tabs.length) await Promise.resolve(vscode.window.tabGroups.close(tabs)).catch(() => undefined);
  }

  private async present(id: string, request: ApprovalRequest): Promise<void> {
    try {
      if (request.kind === 'edit') await this.showDiff(id);
      // The panel shows the request with its own buttons; a toast there would outlive the answer.
      if (this.panelVisible()) return;
      const approve = vscode.l10n.t('Approve');
      const reject = vscode.l10n.t('Reject');
      const text =
        request.kind === 'edit'
          ? vscode.l10n.t(
              'Headroom wants to {0} {1}.',
              request.oldContent === undefined ? vscode.l10n.t('create') : vscode.l10n.t('edit'),
              request.path,
            )
          : request.kind === 'command'
            ? vscode.l10n.t('Headroom wants to run: {0}', request.command)
            : request.kind === 'secret'
              ? vscode.l10n.t('Headroom wants to read {0}: {1}. Its content would be sent to the model.', request.path, request.reason)
              : vscode.l10n.t(
                  'Headroom wants to call the tool {0} from {1}. Input: {2}',
                  request.toolName,
                  request.origin,
                  request.input.slice(0, 300),
                );
      const answer = await vscode.window.showInformationMessage(text, approve, reject);
      if (answer === approve) this.respond(id, { approved: true });
      else if (answer === reject) this.respond(id, { approved: false, reason: 'The user rejected it.' });
    } catch (err) {
      this.log.error(`Could not present approval ${id}: ${String(err)}`);
    }
  }

  override dispose(): void {
    for (const id of [...this.pending.keys()]) this.respond(id, { approved: false, reason: 'Headroom was closed.' });
    super.dispose();
  }
}
