/**
 * Edit-and-resend of the last prompt: the last turn (its prompt and everything the model answered to
 * it) leaves the model's context, saved as a restore point so a reopened session resumes without it;
 * the stored transcript keeps it (nothing is deleted). The caller then sends the edited prompt.
 * Refused while a turn or a compaction runs. Pure (no vscode).
 */
import { HeadroomError } from '../common/errors';
import type { Message } from '../providers/types';
import type { SessionCore } from './session-core';

/** The title a new session takes from its first prompt (its first line, up to 60 characters). */
export const UNTITLED = 'New session';
export function promptTitle(text: string): string {
  return text.trim().split('\n')[0].slice(0, 60) || UNTITLED;
}

/** Index of the last prompt the person wrote (not a compaction's history stand-in), or -1. */
export function lastPromptIndex(view: readonly Message[]): number {
  for (let i = view.length - 1; i >= 0; i--) {
    const m = view[i];
    if (m.role === 'user' && m.origin === undefined) return i;
  }
  return -1;
}

/** Removes the last turn from the context view (and from the resume view of a stored session). */
export async function dropLastTurn(core: SessionCore): Promise<void> {
  core.assertIdle('editing the last prompt');
  const view = core.messages;
  const at = lastPromptIndex(view);
  if (at < 0) throw new HeadroomError('not_found', 'There is no prompt in the context to edit.');
  const kept = view.slice(0, at);
  const first = view[at];
  if (core.store && core.summary && !core.store.readOnly) {
    await core.store.sessions.saveSnapshot(core.summary.id, { kind: 'restore', messages: kept, description: 'Before an edited prompt' });
    // The session was named after the prompt being replaced: the edited one names it instead.
    const replaced = first.role === 'user' ? first.content.find((p) => p.type === 'text')?.text : undefined;
    if (at === 0 && replaced !== undefined && core.summary.title === promptTitle(replaced)) {
      await core.store.sessions.rename(core.summary.id, UNTITLED).catch(() => {});
      core.summary = { ...core.summary, title: UNTITLED };
    }
  }
  core.chain?.discardPrepared();
  core.session?.replaceMessages(kept);
  core.fireState();
}
