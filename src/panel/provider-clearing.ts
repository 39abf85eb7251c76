/**
 * What the chat says when the provider cleared old tool results from what the model read (its own
 * context editing): which results, by tool and what each acted on, like "What left the context" names
 * Headroom's own. The server clears again on every request over its trigger, so only tool uses not
 * shown before are news. Pure (no vscode).
 */
import type { ProviderClearing } from '../context/compaction/context-editing';
import type { ChatItemOf } from '../protocol/chat-items';
import { formatTokens } from '../protocol/format';

/** At most this many cleared results are named in one notice; the rest are counted. */
const NAMED = 6;

/** Remembers which cleared tool uses the chat named already (by call id). */
export class ClearingNotices {
  private readonly shown = new Set<string>();

  /** The notice for `clearing`, or undefined when it cleared nothing the chat has not named yet. */
  notice(id: string, clearing: ProviderClearing): ChatItemOf<'notice'> | undefined {
    const fresh = clearing.toolUses.filter((u) => !this.shown.has(u.callId));
    if (!fresh.length) return undefined;
    for (const u of fresh) this.shown.add(u.callId);
    return { kind: 'notice', id, level: clearing.doubt ? 'warning' : 'info', text: clearingText(clearing, fresh.length) };
  }

  /** A new transcript (another session, a clear): nothing of it was named. */
  forget(): void {
    this.shown.clear();
  }
}

/** "The provider cleared 2 older tool results from what the model reads (8.1k tokens): read_file src/a.ts; …" */
export function clearingText(clearing: ProviderClearing, freshCount = clearing.toolUses.length): string {
  const fresh = clearing.toolUses.slice(-freshCount);
  const named = fresh.slice(0, NAMED).map((u) => (u.target ? `${u.toolName} ${u.target}` : u.toolName));
  const more = fresh.length > NAMED ? `; and ${fresh.length - NAMED} more` : '';
  const tokens = clearing.tokens ? ` (${formatTokens(clearing.tokens)} tokens in all)` : '';
  const results = fresh.length === 1 ? 'an older tool result' : `${fresh.length} older tool results`;
  const doubt = clearing.doubt ? ` Its figures did not add up (${clearing.doubt}), so Headroom did not use them.` : '';
  return (
    `The provider cleared ${results} from what the model reads${tokens}: ${named.join('; ')}${more}. ` +
    `Headroom's history keeps them: search_history finds them.${doubt}`
  );
}
