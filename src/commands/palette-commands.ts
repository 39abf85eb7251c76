/**
 * The host's palette commands: a picker or an input box where the command needs a choice, then the
 * same `HostActions` call the panel's buttons make. Never a webview message: the palette and the
 * panel are two callers of one interface. Pure (no vscode): the UI is the `PaletteUi` port.
 */
import type { ContextUsage } from '../agent/events';
import { isHistoryMessage } from '../context/compaction/history-message';
import { meterDetails, meterFromUsage } from '../panel/meter-view';
import { formatBytes, formatCount, formatPercent, formatRelativeDate, formatTokens } from '../protocol/format';
import { SnapshotName } from '../protocol/messages';
import type { Message } from '../providers/types';
import type { ResultMeta } from '../store/types';
import type { HostCommands } from './command-handlers';
import type { HostActions } from '../app/host-actions';
import type { PaletteUi } from './palette-ui';
import { searchHistory } from './history-search-command';
import type { ApprovalDecision } from '../tools/ports';

/** How many recent prompts Pin… offers. */
const RECENT_PROMPTS = 15;

/** Every host command of the table, each calling `actions` directly. */
export function createPaletteCommands(actions: HostActions, ui: PaletteUi): HostCommands {
  return {
    setApiKey: () => actions.config.setApiKey(),
    selectModel: () => actions.config.selectModel(),
    compactContext: () => actions.context.compact(),
    addSelection: () => actions.prompt.addSelection(),
    clearContext: () => actions.sessions.clear(),
    newSession: () => actions.sessions.create(),
    stop: async () => {
      await actions.prompt.stop();
    },
    approvePending: () => answerOldest(actions, ui, { approved: true }),
    rejectPending: () => answerOldest(actions, ui, { approved: false, reason: 'The user rejected it.' }),
    showContextBreakdown: () => ui.openMarkdown(breakdownMarkdown(actions.context.measure()), 'Context breakdown'),
    openSession: async () => {
      const { sessions } = await actions.sessions.list();
      const picked = await ui.pick(
        sessions.map((s) => ({
          label: s.title,
          description: `${formatCount(s.messageCount, 'message')} · ${formatRelativeDate(s.updatedAt)}`,
          id: s.id,
        })),
        { title: ui.t('Headroom: Open Session') },
      );
      if (picked) await actions.sessions.open(picked.id);
    },
    saveSnapshot: async () => {
      const name = await ui.input({
        title: ui.t('Headroom: Save Snapshot'),
        prompt: ui.t('A short description (optional)'),
        validateInput: (v) => (SnapshotName.safeParse(v).success ? undefined : ui.t('A snapshot description has at most 200 characters.')),
      });
      if (name !== undefined) await actions.context.saveSnapshot(name.trim() || undefined);
    },
    restoreSnapshot: async () => {
      const { snapshots } = await actions.sessions.list();
      const picked = await ui.pick(
        snapshots.map((s) => ({
          label: s.description ?? `${s.kind} snapshot`,
          description: `${formatCount(s.messageCount, 'message')} · ${formatRelativeDate(s.createdAt)}`,
          id: s.id,
        })),
        {
          title: ui.t('Headroom: Restore Snapshot'),
          placeHolder: snapshots.length ? undefined : ui.t('No snapshots in this session yet'),
        },
      );
      if (picked) await actions.context.restoreSnapshot(picked.id);
    },
    undoCompaction: () => actions.context.undoCompaction(),
    openStoredResult: () => openStoredResult(actions, ui),
    searchHistory: () => searchHistory(actions, ui),
    pin: () => pin(actions, ui),
    unpin: async () => {
      const pins = await actions.pins.pins();
      if (!pins.length) {
        ui.info(ui.t('Headroom: this session has no pins.'));
        return;
      }
      const picked = await ui.pick(
        pins.map((p) => ({ label: p.text.slice(0, 120), description: formatRelativeDate(p.createdAt), id: p.id })),
        { title: ui.t('Headroom: Unpin'), placeHolder: ui.t('Which pin to remove?') },
      );
      if (picked) await actions.pins.unpin(picked.id);
    },
  };
}

/** Approve / Reject the Pending Action (a keybinding): the oldest approval waiting, as the panel's buttons answer it. */
function answerOldest(actions: HostActions, ui: PaletteUi, decision: ApprovalDecision): Promise<void> {
  if (!actions.approvals.answerOldest(decision)) ui.info(ui.t('Headroom: nothing is waiting for approval.'));
  return Promise.resolve();
}

/** Pin…: one of the recent prompts, or typed text. */
async function pin(actions: HostActions, ui: PaletteUi): Promise<void> {
  const typed = { label: ui.t('$(edit) Type what to pin…'), text: '' };
  const recent = recentPrompts(actions.context.messages()).map((t) => ({ label: t.slice(0, 120), text: t }));
  const picked = await ui.pick([typed, ...recent], {
    title: ui.t('Headroom: Pin'),
    placeHolder: ui.t('Pinned text is kept verbatim through every compaction of this session'),
  });
  if (!picked) return;
  const text = picked.text || (await ui.input({ title: ui.t('Headroom: Pin'), prompt: ui.t('An instruction or fact to keep verbatim') }));
  if (!text?.trim()) return;
  await actions.pins.pin(text);
  ui.info(ui.t('Pinned: {0}', text.trim().slice(0, 80)));
}

/** The user's recent prompts, newest first; the history message a compaction leaves is not one. */
export function recentPrompts(messages: readonly Message[]): string[] {
  return messages
    .filter((m) => m.role === 'user' && !isHistoryMessage(m))
    .slice(-RECENT_PROMPTS)
    .reverse()
    .map((m) =>
      m.content
        .map((c) => (c.type === 'text' ? c.text : ''))
        .join(' ')
        .trim(),
    )
    .filter((t) => t !== '');
}

/** Open Stored Result…: a pick list of the session's results, or a typed ref id when none is listed. */
async function openStoredResult(actions: HostActions, ui: PaletteUi): Promise<void> {
  const stored = actions.results.storedResults();
  if (!stored.length) {
    // Nothing listed (no folder open, or none yet): a ref id from elsewhere can still be opened.
    const refId = await ui.input({
      title: ui.t('Headroom: Open Stored Result'),
      prompt: ui.t('This session has no stored results. Type the ref_id of one to open it anyway.'),
      placeHolder: 'res_…',
    });
    if (refId?.trim()) await actions.results.open(refId.trim());
    return;
  }
  const picked = await ui.pick(
    stored.map((r: ResultMeta) => ({
      label: r.toolName,
      description: `${formatBytes(r.byteSize)} · ${formatCount(r.lineCount, 'line')}`,
      detail: `${formatRelativeDate(r.createdAt)} · ${r.refId}`,
      refId: r.refId,
    })),
    {
      title: ui.t('Headroom: Open Stored Result'),
      placeHolder: ui.t('Stored tool results of this session, newest first'),
      matchOnDetail: true,
    },
  );
  if (picked) await actions.results.open(picked.refId);
}

/**
 * Show Context Breakdown: the figures the meter shows, as a markdown table: the same view model
 * (`meterFromUsage`), so the same used figure, percent and formatting.
 */
export function breakdownMarkdown(usage: ContextUsage): string {
  const meter = meterFromUsage(usage);
  // The same rows as the panel's Details view (one home: meterDetails); without a budget, the meter's own segments.
  const details = usage.budget
    ? meterDetails(usage.budget)
    : [
        ...meter.segments.map((s) => ({ label: s.label, value: `${formatTokens(s.tokens)} tokens (${formatPercent(s.fraction)})` })),
        { label: 'Estimate', value: meter.accuracy },
      ];
  const cell = (v: string) => v.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const facts = [meter.untilCompactLabel, meter.cacheLabel, meter.deferredLabel].filter((f): f is string => !!f);
  return [
    '# Headroom context breakdown',
    '',
    `Used **${meter.usedLabel}** (${meter.accuracy})${facts.length ? ` · ${facts.join(' · ')}` : ''}.`,
    '',
    '| Part of the context | Tokens (share of the window) |',
    '|---|---|',
    ...details.map((r) => `| ${cell(r.label)} | ${cell(r.value)} |`),
    '',
  ].join('\n');
}
