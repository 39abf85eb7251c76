/** The composer's slash commands: parsing and completion. Pure (no DOM), unit-tested. */

export interface SlashCommand {
  name: '/compact' | '/clear' | '/new' | '/history';
  args: string;
  description: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: '/compact', args: '[focus]', description: 'Compact the context now, optionally keeping a focus' },
  { name: '/clear', args: '', description: 'Clear the context (the transcript stays in history)' },
  { name: '/new', args: '', description: 'Start a new session' },
  { name: '/history', args: '', description: 'Show session history and snapshots' },
];

export type ComposerIntent =
  | { kind: 'prompt'; text: string }
  | { kind: 'compact'; focus?: string }
  | { kind: 'clear' }
  | { kind: 'new' }
  | { kind: 'history' }
  | { kind: 'empty' };

/** What pressing Enter on this text means. An unknown `/word` is a normal prompt (it may be a path). */
export function parseComposer(raw: string): ComposerIntent {
  const text = raw.trim();
  if (!text) return { kind: 'empty' };
  const m = /^\/(\w+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return { kind: 'prompt', text };
  const rest = m[2]?.trim();
  switch (m[1].toLowerCase()) {
    case 'compact':
      return rest ? { kind: 'compact', focus: rest } : { kind: 'compact' };
    case 'clear':
      return rest ? { kind: 'prompt', text } : { kind: 'clear' };
    case 'new':
      return rest ? { kind: 'prompt', text } : { kind: 'new' };
    case 'history':
      return rest ? { kind: 'prompt', text } : { kind: 'history' };
    default:
      return { kind: 'prompt', text };
  }
}

/** Commands to offer while the user types the command word (`/`, `/co`); none once a space follows. */
export function completeSlash(raw: string): SlashCommand[] {
  const m = /^\/(\w*)$/.exec(raw.trimStart());
  if (!m) return [];
  const word = `/${m[1].toLowerCase()}`;
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(word));
}
