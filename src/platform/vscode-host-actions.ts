/**
 * `HostActions` on VS Code: each intent runs on the session, then updates what shows it (the panel's
 * transcript, meter and history, the status bar). The panel's webview messages and the palette
 * commands both call these; nothing here posts or receives a webview message.
 */
import * as vscode from 'vscode';
import type { ContextUsage } from '../agent/events';
import type { CheckpointActions, HostActions, PromptActions } from '../app/host-actions';
import { restrictedActions } from '../app/restricted-actions';
import { pickModel } from '../commands/model-picker';
import { saveDefaultModel, setApiKey, validateBaseUrl } from '../commands/provider-commands';
import { readProviderSettings } from '../config/settings';
import { setUpServerModel } from '../commands/server-setup';
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
  const { session, approvals } = deps;
  const { sessions, compactions } = session;

  /**
   * After anything that replaces the context view: the meter, the transcript and the history. A
   * restore, an undo or a clear keeps the chat (the panel marks what left the context); opening,
   * starting or deleting a session replaces it (the session's cost follows the session: `onDidChangeSpend`).
   */
  const reload = async (how: 'session' | 'clear' | 'unclear' | 'restore' | 'undo' = 'session') => {
    // The meter first: loading the transcript re-sends the whole panel, meter included.
    const usage = deps.remeasure();
    const panel = deps.panel();
    panel.setUndoAvailable(compactions.canUndo);
    if (how !== 'session') await panel.continueTranscript(sessions.messages, how);
    else await panel.loadTranscript(sessions.messages, await compactions.history());
    deps.offerCompaction(usage);
    await panel.refreshHistory();
  };

  // Restricted Mode refuses what writes or sends here, once for the panel and the palette alike.
  return restrictedActions(
    {
      prompt: promptActions(deps),
      sessions: {
        create: async () => {
          await sessions.create();
          approvals.policy.resetSession();
          await reload();
        },
        list: () => sessions.history(),
        open: async (id) => {
          await sessions.open(id);
          approvals.policy.resetSession();
          await reload();
        },
        rename: async (id, title) => {
          await sessions.rename(id, title);
          await deps.panel().refreshHistory();
          await deps.panel().refreshSessionInfo();
        },
        delete: async (id) => {
          await sessions.delete(id);
          await reload();
        },
        clear: async () => {
          if (!(await confirmClear())) return;
          await sessions.clear();
          await reload('clear');
        },
        undoClear: async () => {
          await sessions.undoClear();
          await reload('unclear');
        },
      },
      context: {
        compact: async (focus) => {
          const report = await compactions.compact(focus);
          if (!report) {
            // A cancelled compaction says so in the chat; only "nothing to do" needs a word here.
            if (!compactions.lastCancelled) void vscode.window.showInformationMessage(vscode.l10n.t('Headroom: nothing to compact yet.'));
            return;
          }
          // The chat keeps showing the earlier turns (the transcript keeps them too); the card says what was freed.
          deps.remeasure();
          deps.panel().showCompaction(report);
        },
        cancelCompaction: () => void compactions.cancel(),
        undoCompaction: async () => {
          await compactions.undo();
          await reload('undo');
        },
        saveSnapshot: async (name) => {
          await session.pins.saveSnapshot(name);
          await deps.panel().refreshHistory();
        },
        restoreSnapshot: async (id) => {
          await session.pins.restoreSnapshot(id);
          await reload('restore');
        },
        messages: () => sessions.messages,
        measure: () => session.turns.measure(),
      },
      pins: session.pins,
      checkpoints: checkpointActions(deps),
      results: resultActions(deps),
      approvals: {
        approve: (id, decision) => void approvals.respond(id, decision),
        showDiff: (id) => approvals.showDiff(id),
        answerOldest: (decision) => {
          const oldest = approvals.list()[0];
          return oldest ? approvals.respond(oldest.id, decision) : false;
        },
      },
      config: {
        update: async (change) => {
          await updateConfig(change);
          await setUpServer();
        },
        testConnection: () => session.turns.testConnection(),
        setApiKey: async () => {
          await setApiKey(deps.secrets, deps.log);
          await setUpServer();
        },
        selectModel: () => selectModel(deps),
        runCommand: async (name) => {
          await vscode.commands.executeCommand(
            name === 'openSettings' ? 'workbench.action.openSettings' : `headroom.${name}`,
            name === 'openSettings' ? 'headroom' : undefined,
          );
        },
      },
    },
    () => vscode.workspace.isTrusted,
  );
}

/** Stored results and Search History: open one (of this session or another), search every session. */
function resultActions({ session, results }: HostActionDeps): HostActions['results'] {
  return {
    open: (refId, find, sessionId) => {
      // A stored result of another session (a Search History… hit) is named from that session's list.
      const listed = sessionId ? session.storage.storedResults(sessionId) : session.search.storedResults();
      return results.open(refId, resultTitle(listed.find((r) => r.refId === refId)), find, sessionId);
    },
    searchHistory: (query, signal) => session.searchAll.search(query, signal),
    storedResults: () => session.search.storedResults(),
  };
}

/** The first-run view's provider and base URL, saved to user settings (a bad URL is refused with the reason). */
async function updateConfig(change: Parameters<HostActions['config']['update']>[0]): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('headroom');
  if (change.baseUrl !== undefined) {
    const problem = validateBaseUrl(change.baseUrl);
    if (problem) throw new Error(problem);
    await cfg.update('baseUrl', change.baseUrl.trim(), vscode.ConfigurationTarget.Global);
  }
  if (change.provider) await cfg.update('provider', change.provider, vscode.ConfigurationTarget.Global);
}

/**
 * After a local server's base URL or provider is set: its model comes from its own list (kept, taken,
 * or asked for); nothing for other providers.
 */
async function setUpServer(): Promise<void> {
  const { provider, baseUrl, model } = readProviderSettings();
  if (providerEntry(provider).endpoint !== 'server' || !baseUrl) return;
  await setUpServerModel(baseUrl, model, {
    ui: {
      t: (message, ...args) => vscode.l10n.t(message, ...args),
      pick: async (items, options) => vscode.window.showQuickPick([...items], { ...options, ignoreFocusOut: true }),
      info: (message) => void vscode.window.showInformationMessage(message),
    },
    list: (url) => listServerModels(url, (u, init) => fetch(u, init)),
    use: async (chosen) => void (await saveDefaultModel({ provider, model: chosen, thinking: 'off' })),
  });
}

/** Select Model: the quick pick, then the session's model; the meter shows the new window at once. */
async function selectModel(deps: HostActionDeps): Promise<void> {
  const { session } = deps;
  const limits = session.models.limits();
  const { provider } = session.models.choice();
  // A local server lists what it can serve; a vendor's list is read with its key, under the key's origin rules.
  const serverUrl = providerEntry(provider).endpoint === 'server' ? readProviderSettings().baseUrl : undefined;
  await session.init();
  const [{ vendorModels, thinkingFor }, server] = await Promise.all([session.models.pickerModels(), session.models.serverModels()]);
  const choice = await pickModel({
    current: session.models.choice(),
    serverUrl,
    serverModels: server.ids,
    serverWindows: server.windows,
    serverWindow: limits.source === 'server' ? limits.contextWindow : undefined,
    vendorModels,
    thinkingFor,
  });
  if (!choice) return;
  await session.turns.setModel(choice);
  // A changed default re-measures and refreshes the header through the settings listener; when the
  // settings already held this model, it is done here: the meter shows the new window at once.
  if (await saveDefaultModel(choice)) return;
  deps.offerCompaction(deps.remeasure());
  await deps.panel().postSnapshot();
}

/** A turn's diff and Restore checkpoint: files back, the conversation rewound, the chat kept under a divider. */
function checkpointActions(deps: HostActionDeps): CheckpointActions {
  const { session } = deps;
  return {
    openDiff: (turn, path) => deps.diffs.open(turn, path),
    turnChanges: () => session.checkpoints.turnChanges(),
    restore: async (turn) => {
      const outcome = await session.checkpoints.restore(turn, confirmOverwrite);
      if (!outcome) return;
      deps.remeasure();
      const panel = deps.panel();
      panel.setUndoAvailable(session.compactions.canUndo);
      await panel.rewindTranscript(session.sessions.messages, outcome, () => session.compactions.history());
      await panel.refreshHistory();
    },
  };
}

/** The actions that send a prompt (with its @-mentions), edit-and-resend, stop, and the mention picker's. */
function promptActions(deps: HostActionDeps): PromptActions {
  const { session } = deps;
  const { turns } = session;
  return {
    submit: async (text, images, mentions) => {
      await session.init();
      void turns.prompt(text, images, mentions).catch((err) => deps.panel().showError(`The turn failed: ${errorMessage(err)}`));
    },
    resend: async (text, images, mentions) => {
      // Refused (a turn running, nothing to edit) before anything changes: the panel shows why.
      await turns.dropLastTurn();
      deps.panel().dropLastTurn();
      deps.remeasure();
      void turns.prompt(text, images, mentions).catch((err) => deps.panel().showError(`The turn failed: ${errorMessage(err)}`));
    },
    retry: async () => {
      await session.init();
      // Refused (nothing failed, a turn running) before anything changes: the panel shows why.
      void turns.retry().catch((err) => deps.panel().showError(`Retry failed: ${errorMessage(err)}`));
    },
    stop: () => session.sessions.stop(),
    searchMentions: (query) => turns.searchMentions(query),
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

/**
 * Clear asks once, whoever asked for it (the panel's button, /clear, the palette): the model forgets the
 * whole conversation at once, and only a snapshot restore brings it back.
 */
async function confirmClear(): Promise<boolean> {
  const clear = vscode.l10n.t('Clear');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Clear the context?'),
    {
      modal: true,
      detail: vscode.l10n.t('The model starts fresh from the next message. The conversation stays on screen and in History.'),
    },
    clear,
  );
  return choice === clear;
}
