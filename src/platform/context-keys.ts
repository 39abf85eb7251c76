/**
 * The `when`-clause context keys Headroom's keybindings rest on: a key that approves or stops must
 * do nothing (and let the key through to VS Code) while there is nothing to approve or stop.
 */
import * as vscode from 'vscode';
import type { AgentEvent } from '../agent/events';
import type { ApprovalBroker } from './approvals';

/** Set while at least one approval waits for the user (`headroom.approvePending` / `rejectPending`). */
export const APPROVAL_PENDING = 'headroom.approvalPending';
/** Set while a turn runs (`headroom.stop`). */
export const TURN_RUNNING = 'headroom.turnRunning';

export class ContextKeys {
  private readonly values = new Map<string, boolean>();

  set(key: typeof APPROVAL_PENDING | typeof TURN_RUNNING, value: boolean): void {
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  }
}

/** Keeps the keys true to the session's turns and the broker's pending approvals; the subscriptions to dispose. */
export function watchContextKeys(
  session: { onDidEvent: (listener: (e: AgentEvent) => void) => vscode.Disposable },
  approvals: Pick<ApprovalBroker, 'onDidRequest' | 'onDidSettle' | 'list'>,
): vscode.Disposable[] {
  const keys = new ContextKeys();
  keys.set(APPROVAL_PENDING, false);
  keys.set(TURN_RUNNING, false);
  return [
    session.onDidEvent((e) => {
      if (e.type === 'turn_start' || e.type === 'turn_end') keys.set(TURN_RUNNING, e.type === 'turn_start');
    }),
    approvals.onDidRequest(() => keys.set(APPROVAL_PENDING, true)),
    // The broker forgets a request before it says it settled, so the list is already without it.
    approvals.onDidSettle(() => keys.set(APPROVAL_PENDING, approvals.list().length > 0)),
  ];
}
