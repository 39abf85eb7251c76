/**
 * Maps the store's sessions and the current session's rewind points to the history view: sessions,
 * and inside the current one a single timeline (checkpoints, compactions, the last clear, saved
 * snapshots), each saying in plain words what happened and what restoring it does. Pure (no vscode); never throws.
 */
import { formatBytes, formatCount, formatRelativeDate, formatTokens } from '../protocol/format';
import { sessionCost } from './cost-text';
import type { HistoryView, TimelineEntry } from '../protocol/view-models';
import type { SessionSummary } from '../store/types';
import type { SessionHistory } from '../app/host-actions';
import type { RewindPoint } from '../app/rewind-points';

/** How much of a checkpoint's prompt its title quotes, and how many of its files the detail names. */
const PROMPT_CHARS = 60;
const FILES_NAMED = 3;

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
    timeline: [...d.timeline].sort((a, b) => b.at - a.at).map((p, i) => timelineEntry(p, i, formatDate)),
  };
}

/** One rewind point in words: what happened, and what Restore (or Undo) does — or why it no longer can. */
export function timelineEntry(p: RewindPoint, index: number, formatDate: (epochMs: number) => string): TimelineEntry {
  const date = formatDate(p.at);
  switch (p.kind) {
    case 'checkpoint': {
      const files = p.files.length === 1 ? `${p.files[0]} back as it was` : `these ${p.files.length} files back as they were`;
      return {
        id: `cp${p.turn}`,
        kind: 'checkpoint',
        title: p.prompt ? `Before “${excerpt(p.prompt)}”` : `Before turn ${p.turn}`,
        date,
        detail: `Turn ${p.turn} changed ${formatCount(p.files.length, 'file')}: ${named(p.files)}`,
        restores: `Restore puts ${files} before this turn and rewinds the conversation to before it; your prompt comes back to the message box.`,
        action: { type: 'checkpoint/restore', turn: p.turn },
      };
    }
    case 'compaction':
      return {
        id: `cmp${index}`,
        kind: 'compaction',
        title: `Compacted: ${formatTokens(p.beforeTokens)} → ${formatTokens(p.afterTokens)} tokens`,
        date,
        detail: `${formatCount(p.beforeMessages, 'message')} became ${formatCount(p.afterMessages, 'message')}.`,
        ...(p.restorable
          ? {
              restores: `Undo gives the model the ${formatCount(p.beforeMessages, 'message')} it had before (${formatTokens(p.beforeTokens)} tokens).`,
              action: { type: 'compaction/undo' as const },
            }
          : { restores: 'Can no longer be undone: the context changed after it.' }),
      };
    case 'clear':
      return {
        id: `clr${index}`,
        kind: 'clear',
        title: 'Cleared the context',
        date,
        detail: `The model forgot ${formatCount(p.messages, 'message')}; the chat kept them.`,
        ...(p.restorable
          ? { restores: `Undo gives the model those ${formatCount(p.messages, 'message')} back.`, action: { type: 'clear/undo' as const } }
          : { restores: 'Can no longer be undone: the conversation went on after it.' }),
      };
    case 'snapshot':
      return {
        id: `snap-${p.id}`,
        kind: 'snapshot',
        title: p.name ? `Snapshot “${excerpt(p.name)}”` : 'Snapshot you saved',
        date,
        detail: `${formatCount(p.messages, 'message')} of context.`,
        restores: `Restore gives the model these ${formatCount(p.messages, 'message')} instead of the current context; files stay as they are.`,
        action: { type: 'snapshot/restore', id: p.id },
      };
  }
}

function excerpt(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > PROMPT_CHARS ? `${t.slice(0, PROMPT_CHARS - 1)}…` : t;
}

function named(files: readonly string[]): string {
  const shown = files.slice(0, FILES_NAMED).join(', ');
  return files.length > FILES_NAMED ? `${shown} and ${files.length - FILES_NAMED} more` : shown;
}

function withCost(s: SessionSummary): { cost?: { label: string; title: string } } {
  const cost = sessionCost(s.spend);
  return cost ? { cost } : {};
}
