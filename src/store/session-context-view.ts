import { windowFloor, windowSince, windowStart } from '../context/turns';
import type { Message } from '../providers/types';
import { storedCount } from './session-rows';
import type { ContextView, ContextWindowOptions, LoadedSession, SnapshotInfo } from './types';

/**
 * The context per reference 004, from a session loaded without the messages up to its last clear:
 * the resume snapshot when it is newer than the last clear, then the messages stored after it, cut by
 * the rolling window (max(last clear, now − window)) with the rule of `context/turns.ts`: by time,
 * never starting with a tool result cut from its call, and never cutting the snapshot's leading
 * history message (the window's floor). Pure.
 */
export function contextViewOf(loaded: LoadedSession, opts: ContextWindowOptions): ContextView {
  // The clear is by sequence (nothing up to `afterSeq` was read); the time window cuts what is left.
  const since = windowSince({ windowMs: opts.rollingWindowMs, now: opts.now ?? Date.now() });
  const clearedAt = loaded.marker?.clearedAt ?? 0;
  const cutoffTime = Math.max(clearedAt, since);
  const afterSeq = loaded.marker?.afterSeq ?? 0;
  const snap = loaded.snapshot;
  // A view saved after the clear stands even when nothing was sent since (a restore or an undone clear
  // right after it: its throughSeq is the clear's own).
  const useSnap = !!snap && snap.throughSeq >= afterSeq && snap.createdAt >= clearedAt;
  const afterClear = loaded.tail.filter((m) => m.seq > afterSeq);
  const { messages: snapMessages, counts: snapCounts, ...info } = snap ?? { messages: [] as Message[], counts: undefined };
  const head = useSnap ? snapMessages : [];
  // A snapshot's messages are timed by their own timestamps, the stored ones by when they were stored.
  const all = [...head, ...afterClear.map((m) => m.message)];
  const timeOf = (i: number) => (i < head.length ? head[i].timestamp : afterClear[i - head.length].createdAt);
  // Only a snapshot begins with a history message, and it is newer than the clear (checked above).
  const floor = windowFloor(all, timeOf);
  const start = floor + windowStart(all.slice(floor), (i) => timeOf(floor + i), since);
  const tail = afterClear.slice(Math.max(0, start - head.length));
  // The snapshot's messages the window keeps keep the counts they were saved with, so the first meter
  // after reopening a compacted session is as exact as the one before it closed.
  const fromSnapshot = head.flatMap((message, i) => {
    const c = i < floor || i >= start ? snapCounts?.[i] : undefined;
    return c ? [{ ...c, message }] : [];
  });
  return {
    snapshot: useSnap ? (info as SnapshotInfo) : undefined,
    messages: [...all.slice(0, floor), ...all.slice(start)],
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
