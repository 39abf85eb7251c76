/**
 * Edit-and-resend of the last prompt: the last turn (its prompt and everything the model answered to
 * it) leaves the model's context, saved as a restore point so a reopened session resumes without it;
 * the stored transcript keeps it (nothing is deleted). The caller then sends the edited prompt.
 * Refused while a turn or a compaction runs. Pure (no vscode).
 */
import { HeadroomError } from '../common/errors';
import type { Message } from '../providers/types';
import type { HeadroomStore } from '../store';
import type { Sessions } from './sessions';

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

/**
 * Removes the last turn from the context view (and from the resume view of a stored session).
 * @param store the writable store (undefined: sessions are not stored). @param discardPrepared drops a summary prepared for the old view.
 */
export async function dropLastTurn(
  sessions: Pick<Sessions, 'assertIdle' | 'messages' | 'id' | 'title' | 'retitle' | 'live' | 'changed'>,
  store: HeadroomStore | undefined,
  discardPrepared: () => void,
): Promise<void> {
  sessions.assertIdle('editing the last prompt');
  const view = sessions.messages;
  const at = lastPromptIndex(view);
  if (at < 0) throw new HeadroomError('not_found', 'There is no prompt in the context to edit.');
  const kept = view.slice(0, at);
  const first = view[at];
  const id = sessions.id;
  if (store && id) {
    await store.sessions.saveSnapshot(id, { kind: 'restore', messages: kept, description: 'Before an edited prompt' });
    // The session was named after the prompt being replaced: the edited one names it instead.
    const replaced = first.role === 'user' ? first.content.find((p) => p.type === 'text')?.text : undefined;
    if (at === 0 && replaced !== undefined && sessions.title === promptTitle(replaced)) await sessions.retitle(UNTITLED);
  }
  discardPrepared();
  sessions.live?.replaceMessages(kept);
  sessions.changed();
}
