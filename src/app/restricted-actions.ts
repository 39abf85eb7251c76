/**
 * The one Restricted Mode guard: every user action is listed here with what it does to the world, and
 * in an untrusted workspace each one that writes (workspace files, the session store, settings) or
 * sends (a request to a model or a server) is refused before it runs, in the same words wherever it
 * came from (panel or palette). The table is typed over `HostActions`, so a new action does not
 * compile until it says what it does. Pure (no vscode).
 */
import { HeadroomError } from '../common/errors';
import { restrictedModeRefusal, type RestrictedAction } from '../protocol/restricted-mode';
import type { HostActions } from './host-actions';

/** `reads`: shows or looks up, changes nothing outside the panel. The others are refused in Restricted Mode. */
export type ActionEffect = 'reads' | RestrictedAction;

type Effects = { readonly [G in keyof HostActions]: { readonly [A in keyof HostActions[G]]: ActionEffect } };

export const ACTION_EFFECTS: Effects = {
  prompt: {
    submit: 'send',
    resend: 'send',
    retry: 'send',
    stop: 'reads',
    searchMentions: 'reads',
    openMention: 'reads',
    addSelection: 'reads',
  },
  sessions: { create: 'write', list: 'reads', open: 'reads', rename: 'write', delete: 'write', clear: 'write', undoClear: 'write' },
  context: {
    compact: 'compact',
    cancelCompaction: 'reads',
    undoCompaction: 'write',
    saveSnapshot: 'write',
    restoreSnapshot: 'write',
    messages: 'reads',
    measure: 'reads',
  },
  pins: { pins: 'reads', pin: 'write', unpin: 'write' },
  checkpoints: { turnChanges: 'reads', openDiff: 'reads', restore: 'restore' },
  results: { open: 'reads', searchHistory: 'reads', storedResults: 'reads' },
  approvals: { approve: 'reads', showDiff: 'reads', answerOldest: 'reads' },
  // Test connection sends the key; Select Model asks the configured server for its models.
  config: { update: 'write', testConnection: 'send', setApiKey: 'write', selectModel: 'send', runCommand: 'reads' },
};

/**
 * `actions` behind the guard: while `trusted()` is false, an action that writes or sends rejects with
 * `HeadroomError('invalid_request')` and the Restricted Mode sentence, and does not run; Test
 * connection answers with that sentence instead (it never rejects).
 */
export function restrictedActions(actions: HostActions, trusted: () => boolean): HostActions {
  const guarded: Record<string, Record<string, unknown>> = {};
  for (const group of Object.keys(ACTION_EFFECTS) as Array<keyof HostActions>) {
    const effects = ACTION_EFFECTS[group] as Record<string, ActionEffect>;
    const real = actions[group] as unknown as Record<string, (...args: unknown[]) => unknown>;
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(effects)) {
      const effect = effects[name];
      const run = real[name].bind(real);
      out[name] =
        effect === 'reads'
          ? run
          : (...args: unknown[]) => {
              const refusal = restrictedModeRefusal(effect, trusted());
              if (!refusal) return run(...args);
              if (group === 'config' && name === 'testConnection') return Promise.resolve({ ok: false, message: refusal });
              return Promise.reject(new HeadroomError('invalid_request', refusal));
            };
    }
    guarded[group] = out;
  }
  return guarded as unknown as HostActions;
}
