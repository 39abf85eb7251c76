/**
 * Wires a session's new messages to the session store: the prompt starts a store turn, everything
 * else of the turn is added to it; each message is stored with its token count and content hash so
 * a resumed session needs no recount.
 */
import { isRepetitive, messageSampleText } from '../context/estimate-band';
import type { MessageCount } from '../context/message-tokens';
import type { Message } from '../providers/types';
import type { AppendTurnOptions, StoredCount } from '../store/types';
import type { SessionPersistence } from './session';

/** The one store method the agent needs (`SessionStore.appendTurn`). */
export interface TurnAppender {
  appendTurn(id: string, messages: Message[], opts?: AppendTurnOptions): Promise<unknown>;
}

/**
 * Persistence for one stored session. `count` (usually `ledger.count(m, family)`) supplies the token
 * count and hash saved with each message. Rejections of the store propagate (the loop reports them).
 */
export function storePersistence(store: TurnAppender, sessionId: string, count?: (message: Message) => MessageCount): SessionPersistence {
  return {
    async append(messages, { startsTurn }) {
      const counts = count ? messages.map(count) : undefined;
      await store.appendTurn(sessionId, messages, {
        continueTurn: !startsTurn,
        tokens: counts?.map((c) => c.tokens),
        contentHashes: counts?.map((c) => c.hash),
        tokensExact: counts?.map((c) => c.exact),
        tokenClasses: counts?.map((c) => c.contentClass),
        tokensRepetitive: count ? messages.map((m) => isRepetitive(messageSampleText(m))) : undefined,
        tokenFamily: counts?.[0]?.family,
      });
    },
  };
}

/**
 * The counts a snapshot keeps with its messages (`SaveSnapshotInput.counts`), in the form the store keeps
 * them with transcript messages: seeded back when the compacted session is reopened, so its first meter
 * is exact.
 */
export function snapshotCounts(messages: readonly Message[], counts: readonly MessageCount[]): StoredCount[] {
  return messages.map((m, i) => {
    const c = counts[i];
    const stored: StoredCount = {
      hash: c.hash,
      family: c.family,
      tokens: c.tokens,
      exact: c.exact,
      repetitive: isRepetitive(messageSampleText(m)),
    };
    if (c.contentClass) stored.contentClass = c.contentClass;
    return stored;
  });
}
