/**
 * What Headroom does in an untrusted workspace (VS Code Restricted Mode): the panel is read-only.
 * History and the meter stay visible; nothing is sent to a model or a server (no chat, no summaries, no
 * Test connection), nothing is written (no restored checkpoint, no session change) and no tool edits,
 * runs or calls anything. One home for the rule and its wording, used by the host (which
 * refuses) and the panel (which says so). Pure and browser-safe.
 */

/** Actions that Restricted Mode refuses. */
export type RestrictedAction = 'send' | 'compact' | 'write' | 'restore';

/** The panel's banner in Restricted Mode. */
export const RESTRICTED_BANNER = 'Restricted Mode: read-only (history and meter). Trust the workspace to chat.';

const WHAT: Record<RestrictedAction, string> = {
  send: 'send messages',
  compact: 'compact with a model summary',
  write: 'change sessions, pins, settings or keys',
  restore: 'restore checkpoints (they rewrite workspace files)',
};

/**
 * Why `action` is refused, or undefined when it may go ahead (`trusted`). The sentence says how to
 * get out of Restricted Mode.
 */
export function restrictedModeRefusal(action: RestrictedAction, trusted: boolean): string | undefined {
  if (trusted) return undefined;
  return (
    `This workspace is in Restricted Mode, so Headroom does not ${WHAT[action]} here: the panel is read-only ` +
    '(history and the meter stay visible). Trust the workspace (Workspaces: Manage Workspace Trust) to use Headroom fully.'
  );
}
