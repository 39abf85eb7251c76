/** Maps the store's session and snapshot rows to the history view. Pure (no vscode); never throws. */
import { formatBytes, formatRelativeDate } from '../protocol/format';
import { sessionCost } from './cost-text';
import type { HistoryView } from '../protocol/view-models';
import type { SessionSummary, SnapshotInfo } from '../store/types';
import type { SessionHistory } from '../app/host-actions';

const KIND_LABEL: Record<SnapshotInfo['kind'], string> = { compaction: 'Compaction', named: 'Snapshot', restore: 'Restore point' };

/** `formatDate` is injectable so tests do not depend on the clock or the time zone. */
export function toHistoryView(d: SessionHistory, formatDate: (epochMs: number) => string = (ms) => formatRelativeDate(ms)): HistoryView {
  return {
    sessions: [...d.sessions]
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map((s) => ({
        id: s.id,
        title: s.title.trim() || 'Untitled session',
        date: formatDate(s.updatedAt),
        messageCount: Math.max(0, Math.floor(s.messageCount)),
        size: formatBytes(s.bytes),
        current: s.id === d.currentSessionId,
        ...withCost(s),
      })),
    snapshots: [...d.snapshots]
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((s) => ({
        id: s.id,
        kind: s.kind,
        label: s.description?.trim() || KIND_LABEL[s.kind],
        date: formatDate(s.createdAt),
        messageCount: Math.max(0, Math.floor(s.messageCount)),
      })),
    canUndoCompaction: d.canUndoCompaction,
  };
}

function withCost(s: SessionSummary): { cost?: { label: string; title: string } } {
  const cost = sessionCost(s.spend);
  return cost ? { cost } : {};
}
