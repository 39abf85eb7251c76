import { windowSince, windowStart } from '../context/turns';
import type { Message } from '../providers/types';
import { storedCount } from './session-rows';
import type { ContextView, ContextWindowOptions, LoadedSession, SnapshotInfo } from './types';

/**
 * The context per reference 004, from a session loaded without the messages up to its last clear:
 * messages since max(last clear, now − rolling window), by the time they were stored, never starting
 * with a tool result cut from its call (the rule of `context/turns.ts`). The resume snapshot is
 * included when it is newer than both. Pure.
 */
export function contextViewOf(loaded: LoadedSession, opts: ContextWindowOptions): ContextView {
  // The clear is by sequence (nothing up to `afterSeq` was read); the time window cuts what is left.
  const since = windowSince({ windowMs: opts.rollingWindowMs, now: opts.now ?? Date.now() });
  const cutoffTime = Math.max(loaded.marker?.clearedAt ?? 0, since);
  const afterSeq = loaded.marker?.afterSeq ?? 0;
  const snap = loaded.snapshot;
  const useSnap = !!snap && snap.throughSeq > afterSeq && snap.createdAt >= cutoffTime;
  const afterClear = loaded.tail.filter((m) => m.seq > afterSeq);
  const tail = afterClear.slice(
    windowStart(
      afterClear.map((m) => m.message),
      (i) => afterClear[i].createdAt,
      since,
    ),
  );
  const { messages: snapMessages, counts: snapCounts, ...info } = snap ?? { messages: [] as Message[], counts: undefined };
  // The snapshot's messages keep the counts they were saved with, so the first meter after reopening a
  // compacted session is as exact as the one before it closed.
  const fromSnapshot = useSnap
    ? snapMessages.flatMap((message, i) => {
        const c = snapCounts?.[i];
        return c ? [{ ...c, message }] : [];
      })
    : [];
  return {
    snapshot: useSnap ? (info as SnapshotInfo) : undefined,
    messages: [...(useSnap ? snapMessages : []), ...tail.map((m) => m.message)],
    tail,
    counts: [
      ...fromSnapshot,
      ...tail.flatMap((m) => {
        const c = storedCount(m);
        return c ? [{ ...c, message: m.message }] : [];
      }),
    ],
    cutoffTime,
  };
}
