/**
 * The heavy half of the composition root, bundled separately as dist/host.js and required on first
 * use (the view resolving or a command running), so activation stays cheap: zod, the protocol, the
 * panel, the engine, the store and the providers load here, never on the activation path.
 * It builds the object graph and connects it; behaviour lives in the objects.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../common/errors';
import { readAutoApproveSettings, readProviderSettings } from '../config/settings';
import { sizeWarning } from '../agent/session-gate';
import type { ContextUsage } from '../agent/events';
import type { HostCommands } from '../commands/command-handlers';
import { createPaletteCommands } from '../commands/palette-commands';
import { createVscodePaletteUi } from '../commands/vscode-palette-ui';
import { ChatViewProvider } from '../panel/chat-view-provider';
import { toConfigView } from '../panel/config-view';
import { modelInfoView } from '../panel/model-view';
import { intentFailure } from '../panel/intent-failures';
import { PROTOCOL_VERSION, type SnapshotView } from '../protocol/messages';
import { resolveApiKey, type SecretStore } from '../providers/credentials';
import { ApprovalBroker } from './approvals';
import { ApprovalPolicy } from '../tools/approval-policy';
import { CheckpointDocuments } from './checkpoint-documents';
import { ResultDocuments } from './result-documents';
import { vscodeSecretStore } from './secret-store';
import { SessionHost } from './session-host';
import { ContextStatusBar } from './status-bar';
import { watchContextKeys } from './context-keys';
import { createHostActions } from './vscode-host-actions';
import { readContextSettings } from '../config/context-settings';

export interface Host extends vscode.Disposable {
  readonly panel: ChatViewProvider;
  readonly session: SessionHost;
  readonly approvals: ApprovalBroker;
  /** Where API keys live (VS Code SecretStorage); integration tests store a key bound to their fake server. */
  readonly secrets: SecretStore;
  /** The palette commands that need more than the activation bundle (the table's host commands). */
  readonly commands: HostCommands;
}

/** The one field of the extension's package.json the host reads (VS Code types `packageJSON` as any). */
interface ExtensionManifest {
  version?: string;
}

export function createHost(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Host {
  const disposables: vscode.Disposable[] = [];
  const secrets = vscodeSecretStore(context.secrets);
  // The panel shows approvals itself while it is visible (it is created below; asked only later).
  const approvals = new ApprovalBroker(log, new ApprovalPolicy(readAutoApproveSettings), () => panel.isVisible);
  disposables.push(approvals);
  const session = new SessionHost({ context, log, secrets, approvals });
  const results = new ResultDocuments((refId, sessionId) => session.search.readResult(refId, sessionId));
  const diffs = new CheckpointDocuments((turn, file) => session.checkpoints.diff(turn, file));
  const paletteUi = createVscodePaletteUi();
  disposables.push(session, results, diffs, paletteUi);

  const statusBar = new ContextStatusBar();
  disposables.push(statusBar);
  const showUsage = (usage: ContextUsage) => statusBar.update(usage);

  const followWindow = headerFollowsWindow(() => void panel.postSnapshot());
  /** Measures against the configured model's window now and updates the meter and the status bar. */
  const remeasure = () => {
    const usage = session.turns.measure();
    showUsage(usage);
    followWindow(usage.contextWindow);
    if (usage.budget) panel.pushBudget(usage.budget);
    return usage;
  };

  /**
   * After a model switch or on resume: when the context is already at the compact threshold of the
   * (new) window, say so and offer to compact now rather than at the next request.
   */
  const offerCompaction = (usage: ContextUsage) => {
    const warning = sizeWarning(usage, readContextSettings().settings.thresholds);
    if (!warning || session.sessions.state().running) return;
    const compactNow = vscode.l10n.t('Compact Now');
    void vscode.window.showWarningMessage(`Headroom: ${warning}`, compactNow).then((choice) => {
      if (choice === compactNow)
        void actions.context.compact().catch((err) => panel.showError(intentFailure('context/compact', errorMessage(err))));
    });
  };

  const actions = createHostActions({ session, approvals, results, diffs, secrets, log, panel: () => panel, remeasure, offerCompaction });

  const panel: ChatViewProvider = new ChatViewProvider({
    extensionUri: context.extensionUri,
    log,
    snapshot: () => hostSnapshot(context, session, secrets),
    actions,
  });
  disposables.push(panel);
  disposables.push(
    session.onDidEvent((e) => {
      panel.pushEvent(e);
      if (e.type === 'context_usage') {
        showUsage(e.usage);
        followWindow(e.usage.contextWindow);
      }
    }),
    ...watchContextKeys(session, approvals),
  );
  // The status bar shows the stored session's figure as soon as the host is up, and the panel the
  // resumed session's newest page (older pages come in as the user scrolls up).
  void session.init().then(
    async () => {
      panel.setUndoAvailable(session.compactions.canUndo);
      const usage = remeasure();
      // The resumed session shows its newest page, with its compactions, each with what left the context.
      if (session.sessions.messages.length && !session.sessions.state().running)
        await panel.loadTranscript(session.sessions.messages, await session.compactions.history());
      offerCompaction(usage);
    },
    (err) => log.error(`Could not open the session: ${errorMessage(err)}`),
  );
  disposables.push(approvals.onDidRequest((p) => panel.showApproval(p.id, p.request)));
  disposables.push(session.compactions.onDidChangePause((reason) => panel.setAutoCompactionPaused(reason)));
  disposables.push(session.records.onDidChangeLedger((ledger) => panel.showLedger(ledger)));
  disposables.push(session.records.onDidChangeSpend((spend) => panel.showSpend(spend)));
  disposables.push(approvals.onDidSettle((s) => panel.settleApproval(s.id, s.decision)));
  disposables.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('headroom')) return;
      void panel.postSnapshot();
      // A model or window change is measured at once against the new window.
      if (!session.sessions.state().running) offerCompaction(remeasure());
    }),
  );
  // A key changed; Restricted Mode ended (the read-only banner goes at once); a newer window took the sessions over.
  const repost = () => void panel.postSnapshot();
  disposables.push(context.secrets.onDidChange(repost), vscode.workspace.onDidGrantWorkspaceTrust(repost));
  disposables.push(session.storage.onDidChangeAccess(repost));

  const commands = createPaletteCommands(actions, paletteUi);
  log.info('Headroom host loaded');
  return {
    panel,
    session,
    approvals,
    secrets,
    commands,
    dispose: () => {
      for (const d of disposables.splice(0).reverse()) d.dispose();
    },
  };
}

/**
 * The header names the window the meter measures against: when the meter's window changes (a server
 * said another one, the model was switched), the header is sent again (`repost`).
 */
function headerFollowsWindow(repost: () => void): (window: number) => void {
  let shown: number | undefined;
  return (window) => {
    if (shown !== undefined && window !== shown) repost();
    shown = window;
  };
}

/** The panel's whole state, from the host: the session, its model and key, where it is stored. */
async function hostSnapshot(context: vscode.ExtensionContext, session: SessionHost, secrets: SecretStore): Promise<SnapshotView> {
  await session.init();
  // The session's model (remembered with it), at the configured base URL.
  const choice = session.models.choice();
  const config = await toConfigView({ ...readProviderSettings(), ...choice }, async (p) => (await resolveApiKey(p, secrets)) !== undefined);
  const state = session.sessions.state();
  return {
    protocolVersion: PROTOCOL_VERSION,
    extensionVersion: (context.extension.packageJSON as ExtensionManifest).version ?? '0.0.0',
    workspaceName: vscode.workspace.name ?? null,
    storageAvailable: state.storage === 'workspace',
    ...(state.storageNote ? { storageNote: state.storageNote } : {}), // why nothing is saved here
    trusted: vscode.workspace.isTrusted,
    session: { id: state.sessionId, title: state.title, messageCount: state.messageCount, transcriptCount: state.transcriptCount },
    config: { ...config, modelInfo: modelInfoView(session.models.limits(), choice.thinking) },
  };
}
