/**
 * `HostActions` on VS Code: each intent runs on the session, then updates what shows it (the panel's
 * transcript, meter and history, the status bar). The panel's webview messages and the palette
 * commands both call these; nothing here posts or receives a webview message.
 */
import * as vscode from 'vscode';
import type { ContextUsage } from '../agent/events';
import type { HostActions } from '../commands/host-actions';
import { pickModel } from '../commands/model-picker';
import { saveDefaultModel, setApiKey, validateBaseUrl } from '../commands/provider-commands';
import { readProviderSettings } from '../config/settings';
import { listServerModels } from '../providers/server-models';
import { providerEntry } from '../common/provider-catalogue';
import { errorMessage } from '../common/errors';
import type { ChatViewProvider } from '../panel/chat-view-provider';
import { CHAT_VIEW_ID } from '../panel/view-ids';
import { formatBytes } from '../protocol/format';
import type { SecretStore } from '../providers/credentials';
import type { ResultMeta } from '../store';
import type { ApprovalBroker } from './approvals';
import { confirmOverwrite, type CheckpointDocuments } from './checkpoint-documents';
import { openMention, selectionMention } from './editor-mentions';
import type { ResultDocuments } from './result-documents';
import type { SessionHost } from './session-host';

/** What the actions update after they ran: the panel's push API. */
export type PanelView = Pick<
  ChatViewProvider,
  | 'loadTranscript'
  | 'continueTranscript'
  | 'rewindTranscript'
  | 'setUndoAvailable'
  | 'pushBudget'
  | 'showCompaction'
  | 'refreshHistory'
  | 'refreshSessionInfo'
  | 'showError'
  | 'postSnapshot'
  | 'addMention'
  | 'dropLastTurn'
>;

export interface HostActionDeps {
  readonly session: SessionHost;
  readonly approvals: ApprovalBroker;
  readonly results: ResultDocuments;
  /** A turn's changes in the diff editor (checkpoints). */
  readonly diffs: CheckpointDocuments;
  readonly secrets: SecretStore;
  readonly log: vscode.LogOutputChannel;
  /** The panel; a getter because the panel is built with these actions. */
  readonly panel: () => PanelView;
  /** Measures against the configured model's window now and shows it (the panel's meter, the status bar). */
  readonly remeasure: () => ContextUsage;
  /** When the context is already at the compact threshold, offers to compact now. */
  readonly offerCompaction: (usage: ContextUsage) => void;
}

export function createHostActions(deps: HostActionDeps): HostActions {
  const { session, approvals, results } = deps;

  /**
   * After anything that replaces the context view: the meter, the transcript and the history. A
   * restore or an undo keeps the chat (the panel marks what left the context); opening, starting or
   * deleting a session, or a clear, replaces it (the session's cost follows the session: `onDidChangeSpend`).
   */
  const reload = async (how: 'session' | 'clear' | 'restore' | 'undo' = 'session') => {
    // The meter first: loading the transcript re-sends the whole panel, meter included.
    const usage = deps.remeasure();
    const panel = deps.panel();
    panel.setUndoAvailable(session.canUndoCompactions);
    if (how === 'restore' || how === 'undo') await panel.continueTranscript(session.messages, how);
    else if (how === 'clear') await panel.loadTranscript(session.messages);
    else await panel.loadTranscript(session.messages, await session.compactionHistory());
    deps.offerCompaction(usage);
    await panel.refreshHistory();
  };

  return {
    ...mentionActions(deps),
    stop: () => session.stop(),
    compact: async (focus) => {
      const report = await session.compact(focus);
      if (!report) {
        // A cancelled compaction says so in the chat; only "nothing to do" needs a word here.
        if (!session.lastCompactionCancelled) void vscode.window.showInformationMessage(vscode.l10n.t('Headroom: nothing to compact yet.'));
        return;
      }
      // The chat keeps showing the earlier turns (the transcript keeps them too); the card says what was freed.
      deps.remeasure();
      deps.panel().showCompaction(report);
    },
    clear: async () => {
      await session.clear();
      await reload('clear');
    },
    newSession: async () => {
      await session.newSession();
      approvals.policy.resetSession();
      await reload();
    },
    listSessions: () => session.history(),
    openSession: async (id) => {
      await session.openSession(id);
      approvals.policy.resetSession();
      await reload();
    },
    renameSession: async (id, title) => {
      await session.renameSession(id, title);
      await deps.panel().refreshHistory();
      await deps.panel().refreshSessionInfo();
    },
    deleteSession: async (id) => {
      await session.deleteSession(id);
      await reload();
    },
    saveSnapshot: async (name) => {
      await session.saveSnapshot(name);
      await deps.panel().refreshHistory();
    },
    restoreSnapshot: async (id) => {
      await session.restoreSnapshot(id);
      await reload('restore');
    },
    undoCompaction: async () => {
      await session.undoCompaction();
      await reload('undo');
    },
    ...checkpointActions(deps),
    cancelCompaction: () => void session.cancelCompaction(),
    openResult: (refId) => results.open(refId, resultTitle(session.storedResults().find((r) => r.refId === refId))),
    searchHistory: (query) => session.searchHistory(query),
    storedResults: () => session.storedResults(),
    messages: () => session.messages,
    measure: () => session.measure(),
    pins: () => session.pins(),
    pin: (text) => session.pin(text),
    unpin: (id) => session.unpin(id),
    approve: (id, decision) => void approvals.respond(id, decision),
    showDiff: (id) => approvals.showDiff(id),
    updateConfig,
    testConnection: () => session.testConnection(),
    setApiKey: () => setApiKey(deps.secrets, deps.log),
    selectModel: () => selectModel(deps),
    runCommand: async (name) => {
      await vscode.commands.executeCommand(
        name === 'openSettings' ? 'workbench.action.openSettings' : `headroom.${name}`,
        name === 'openSettings' ? 'headroom' : undefined,
      );
    },
  };
}

/** The first-run view's provider and base URL, saved to user settings (a bad URL is refused with the reason). */
async function updateConfig(change: Parameters<HostActions['updateConfig']>[0]): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('headroom');
  if (change.baseUrl !== undefined) {
    const problem = validateBaseUrl(change.baseUrl);
    if (problem) throw new Error(problem);
    await cfg.update('baseUrl', change.baseUrl.trim(), vscode.ConfigurationTarget.Global);
  }
  if (change.provider) await cfg.update('provider', change.provider, vscode.ConfigurationTarget.Global);
}

/** Select Model: the quick pick, then the session's model; the meter shows the new window at once. */
async function selectModel(deps: HostActionDeps): Promise<void> {
  const { session } = deps;
  const limits = session.limits();
  const { provider } = session.modelChoice();
  // A local server lists what it can serve; a vendor's list is read with its key, under the key's origin rules.
  const serverUrl = providerEntry(provider).endpoint === 'server' ? readProviderSettings().baseUrl : undefined;
  const { vendorModels, levelsFor } = await session.pickerModels();
  const choice = await pickModel({
    current: session.modelChoice(),
    serverUrl,
    serverModels: serverUrl ? await listServerModels(serverUrl, (url, init) => fetch(url, init)) : [],
    serverWindow: limits.source === 'server' ? limits.contextWindow : undefined,
    vendorModels,
    levelsFor,
  });
  if (!choice) return;
  await session.setModel(choice);
  // A changed default re-measures and refreshes the header through the settings listener; when the
  // settings already held this model, it is done here: the meter shows the new window at once.
  if (await saveDefaultModel(choice)) return;
  deps.offerCompaction(deps.remeasure());
  await deps.panel().postSnapshot();
}

/** A turn's diff and Restore checkpoint: files back, the conversation rewound, the chat kept under a divider. */
function checkpointActions(deps: HostActionDeps): Pick<HostActions, 'openCheckpointDiff' | 'restoreCheckpoint' | 'turnChanges'> {
  const { session } = deps;
  return {
    openCheckpointDiff: (turn, path) => deps.diffs.open(turn, path),
    turnChanges: () => session.turnChanges(),
    restoreCheckpoint: async (turn) => {
      const outcome = await session.restoreCheckpoint(turn, confirmOverwrite);
      if (!outcome) return;
      deps.remeasure();
      const panel = deps.panel();
      panel.setUndoAvailable(session.canUndoCompactions);
      await panel.rewindTranscript(session.messages, outcome);
      await panel.refreshHistory();
    },
  };
}

/** The actions that send a prompt (with its @-mentions), edit-and-resend, and the mention picker's. */
function mentionActions(
  deps: HostActionDeps,
): Pick<HostActions, 'submitPrompt' | 'resendPrompt' | 'searchMentions' | 'openMention' | 'addSelection'> {
  const { session } = deps;
  return {
    submitPrompt: async (text, images, mentions) => {
      await session.init();
      void session.prompt(text, images, mentions).catch((err) => deps.panel().showError(`The turn failed: ${errorMessage(err)}`));
    },
    resendPrompt: async (text, images, mentions) => {
      // Refused (a turn running, nothing to edit) before anything changes: the panel shows why.
      await session.dropLastTurn();
      deps.panel().dropLastTurn();
      deps.remeasure();
      void session.prompt(text, images, mentions).catch((err) => deps.panel().showError(`The turn failed: ${errorMessage(err)}`));
    },
    searchMentions: (query) => session.searchMentions(query),
    openMention: (path, line) => openMention(path, line),
    addSelection: async () => {
      const mention = selectionMention();
      if (!mention) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Headroom: select some text in an editor first.'));
        return;
      }
      await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
      deps.panel().addMention(mention);
    },
  };
}

/** An editor tab title for a stored result: "run_command output · 35.9 KB". */
function resultTitle(meta: ResultMeta | undefined): string | undefined {
  return meta ? `${meta.toolName} output · ${formatBytes(meta.byteSize)}` : undefined;
}
