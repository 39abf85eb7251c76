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
import { meterDetails } from '../panel/meter-view';
import { selectModel, setApiKey, validateBaseUrl } from '../commands/provider-commands';
import { ChatViewProvider } from '../panel/chat-view-provider';
import { PROTOCOL_VERSION, type SnapshotView } from '../protocol/messages';
import { formatBytes } from '../protocol/format';
import type { ResultMeta } from '../store';
import { resolveApiKey, type SecretStore } from '../providers/credentials';
import { ApprovalBroker } from './approvals';
import { ApprovalPolicy } from '../tools/approval-policy';
import { ResultDocuments } from './result-documents';
import { vscodeSecretStore } from './secret-store';
import { SessionHost } from './session-host';
import { ContextStatusBar } from './status-bar';
import { readContextSettings } from '../config/context-settings';

export interface Host extends vscode.Disposable {
  readonly panel: ChatViewProvider;
  readonly session: SessionHost;
  readonly approvals: ApprovalBroker;
  /** Where API keys live (VS Code SecretStorage); integration tests store a key bound to their fake server. */
  readonly secrets: SecretStore;
  /** Implementations of the commands that need more than the activation bundle. */
  readonly commands: Record<HostCommand, () => Promise<void>>;
}

/** The one field of the extension's package.json the host reads (VS Code types `packageJSON` as any). */
interface ExtensionManifest {
  version?: string;
}

export type HostCommand =
  | 'setApiKey'
  | 'selectModel'
  | 'compactContext'
  | 'clearContext'
  | 'newSession'
  | 'stop'
  | 'showContextBreakdown'
  | 'openSession'
  | 'saveSnapshot'
  | 'restoreSnapshot'
  | 'undoCompaction'
  | 'openStoredResult'
  | 'pin'
  | 'unpin';

export function createHost(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Host {
  const disposables: vscode.Disposable[] = [];
  const secrets = vscodeSecretStore(context.secrets);
  // The panel shows approvals itself while it is visible (it is created below; asked only later).
  const approvals = new ApprovalBroker(log, new ApprovalPolicy(readAutoApproveSettings), () => panel.isVisible);
  disposables.push(approvals);
  const session = new SessionHost({ context, log, secrets, approvals });
  disposables.push(session);
  const results = new ResultDocuments((refId) => session.readResult(refId));
  disposables.push(results);

  const statusBar = new ContextStatusBar();
  disposables.push(statusBar);
  const showUsage = (usage: ReturnType<SessionHost['measure']>) => statusBar.update(usage, readContextSettings().settings.thresholds);

  /** After anything that replaces the context view: the transcript, the meter and the history. */
  const reload = async (sameSession = false) => {
    // The meter first: loadTranscript re-sends the whole panel, meter included.
    const usage = remeasure();
    await panel.loadTranscript(session.messages, sameSession);
    offerCompaction(usage);
  };

  /** Measures against the configured model's window now and updates the meter and the status bar. */
  const remeasure = () => {
    const usage = session.measure();
    showUsage(usage);
    if (usage.budget) panel.pushBudget(usage.budget);
    return usage;
  };

  /**
   * After a model switch or on resume: when the context is already at the compact threshold of the
   * (new) window, say so and offer to compact now rather than at the next request.
   */
  const offerCompaction = (usage: ReturnType<SessionHost['measure']>) => {
    const warning = sizeWarning(usage, readContextSettings().settings.thresholds);
    if (!warning || session.state().running) return;
    const compactNow = vscode.l10n.t('Compact Now');
    void vscode.window.showWarningMessage(`Headroom: ${warning}`, compactNow).then((choice) => {
      if (choice === compactNow) void panel.receive({ type: 'context/compact' });
    });
  };

  const panel: ChatViewProvider = new ChatViewProvider({
    extensionUri: context.extensionUri,
    log,
    snapshot: async (): Promise<SnapshotView> => {
      await session.init();
      const settings = readProviderSettings();
      // OpenAI-compatible servers often need no key; they need a base URL instead. VS Code's models need neither.
      const hasApiKey =
        settings.provider === 'vscode-lm'
          ? true
          : settings.provider === 'openai-compatible'
            ? settings.baseUrl !== undefined
            : (await resolveApiKey(settings.provider, secrets)) !== undefined;
      const state = session.state();
      return {
        protocolVersion: PROTOCOL_VERSION,
        extensionVersion: (context.extension.packageJSON as ExtensionManifest).version ?? '0.0.0',
        workspaceName: vscode.workspace.name ?? null,
        storageAvailable: state.storage === 'workspace',
        trusted: vscode.workspace.isTrusted,
        session: { id: state.sessionId, title: state.title, messageCount: state.messageCount, transcriptCount: state.transcriptCount },
        config: { provider: settings.provider, model: settings.model, hasApiKey, baseUrl: settings.baseUrl },
      };
    },
    submitPrompt: async (text) => {
      await session.init();
      void session.prompt(text).catch((err) => panel.showError(`The turn failed: ${errorMessage(err)}`));
    },
    stop: () => session.stop(),
    compact: async (focus) => {
      const report = await session.compact(focus);
      if (!report) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Headroom: nothing to compact yet.'));
        return;
      }
      // The chat keeps showing the earlier turns (the transcript keeps them too); the card says what was freed.
      const usage = session.measure();
      showUsage(usage);
      if (usage.budget) panel.pushBudget(usage.budget);
      panel.showCompaction(report);
    },
    clear: async () => {
      await session.clear();
      await reload(true);
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
    renameSession: (id, title) => session.renameSession(id, title),
    deleteSession: async (id) => {
      await session.deleteSession(id);
      await reload();
    },
    saveSnapshot: (name) => session.saveSnapshot(name),
    restoreSnapshot: async (id) => {
      await session.restoreSnapshot(id);
      await reload(true);
    },
    undoCompaction: async () => {
      await session.undoCompaction();
      await reload(true);
    },
    openResult: (refId) => results.open(refId, resultTitle(session.storedResults().find((r) => r.refId === refId))),
    approve: (id, decision) => void approvals.respond(id, decision),
    showDiff: (id) => approvals.showDiff(id),
    updateConfig: async (change) => {
      const cfg = vscode.workspace.getConfiguration('headroom');
      if (change.baseUrl !== undefined) {
        const problem = validateBaseUrl(change.baseUrl);
        if (problem) throw new Error(problem);
        await cfg.update('baseUrl', change.baseUrl.trim(), vscode.ConfigurationTarget.Global);
      }
      if (change.provider) await cfg.update('provider', change.provider, vscode.ConfigurationTarget.Global);
    },
    runCommand: async (name) => {
      await vscode.commands.executeCommand(
        name === 'openSettings' ? 'workbench.action.openSettings' : `headroom.${name}`,
        name === 'openSettings' ? 'headroom' : undefined,
      );
    },
  });
  disposables.push(panel);
  disposables.push(
    session.onDidEvent((e) => {
      panel.pushEvent(e);
      if (e.type === 'context_usage') showUsage(e.usage);
    }),
  );
  // The status bar shows the stored session's figure as soon as the host is up.
  void session.init().then(
    () => offerCompaction(remeasure()),
    (err) => log.error(`Could not open the session: ${errorMessage(err)}`),
  );
  disposables.push(approvals.onDidRequest((p) => panel.showApproval(p.id, p.request)));
  disposables.push(session.onDidChangePause((reason) => panel.setAutoCompactionPaused(reason)));
  disposables.push(approvals.onDidSettle((s) => panel.settleApproval(s.id, s.decision)));
  disposables.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('headroom')) return;
      void panel.postSnapshot();
      // A model or window change is measured at once against the new window.
      if (!session.state().running) offerCompaction(remeasure());
    }),
  );
  disposables.push(context.secrets.onDidChange(() => void panel.postSnapshot()));
  // Restricted Mode ends without a reload: the panel drops its read-only banner at once.
  disposables.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void panel.postSnapshot()));

  const pickSession = async (): Promise<string | undefined> => {
    const h = await session.history();
    const picked = await vscode.window.showQuickPick(
      h.sessions.map((s) => ({
        label: s.title,
        description: `${s.messageCount} messages · ${new Date(s.updatedAt).toLocaleString()}`,
        id: s.id,
      })),
      { title: vscode.l10n.t('Headroom: Open Session') },
    );
    return picked?.id;
  };

  const commands: Host['commands'] = {
    setApiKey: () => setApiKey(secrets, log),
    selectModel: () => selectModel(),
    compactContext: () => panel.receive({ type: 'context/compact' }),
    clearContext: () => panel.receive({ type: 'context/clear' }),
    newSession: () => panel.receive({ type: 'session/new' }),
    stop: () => {
      session.stop();
      return Promise.resolve();
    },
    showContextBreakdown: async () => {
      const usage = session.measure();
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: breakdownMarkdown(usage) });
      await vscode.window.showTextDocument(doc, { preview: true });
    },
    openSession: async () => {
      const id = await pickSession();
      if (id) await panel.receive({ type: 'session/open', id });
    },
    saveSnapshot: async () => {
      const name = await vscode.window.showInputBox({
        title: vscode.l10n.t('Headroom: Save Snapshot'),
        prompt: vscode.l10n.t('A short description (optional)'),
      });
      if (name !== undefined) await panel.receive({ type: 'snapshot/save', name });
    },
    restoreSnapshot: async () => {
      const h = await session.history();
      const picked = await vscode.window.showQuickPick(
        h.snapshots.map((s) => ({
          label: s.description ?? `${s.kind} snapshot`,
          description: `${s.messageCount} messages · ${new Date(s.createdAt).toLocaleString()}`,
          id: s.id,
        })),
        {
          title: vscode.l10n.t('Headroom: Restore Snapshot'),
          placeHolder: h.snapshots.length ? undefined : vscode.l10n.t('No snapshots in this session yet'),
        },
      );
      if (picked) await panel.receive({ type: 'snapshot/restore', id: picked.id });
    },
    undoCompaction: () => panel.receive({ type: 'compaction/undo' }),
    pin: async () => {
      const recent = session.messages
        .filter((m) => m.role === 'user')
        .slice(-15)
        .reverse()
        .map((m) =>
          m.content
            .map((c) => (c.type === 'text' ? c.text : ''))
            .join(' ')
            .trim(),
        )
        .filter((t) => t && !t.startsWith('This is a summary of earlier work'));
      const typed = { label: vscode.l10n.t('$(edit) Type what to pin…'), text: '' };
      const picked = await vscode.window.showQuickPick([typed, ...recent.map((t) => ({ label: t.slice(0, 120), text: t }))], {
        title: vscode.l10n.t('Headroom: Pin'),
        placeHolder: vscode.l10n.t('Pinned text is kept verbatim through every compaction of this session'),
      });
      if (!picked) return;
      const text =
        picked.text ||
        (await vscode.window.showInputBox({
          title: vscode.l10n.t('Headroom: Pin'),
          prompt: vscode.l10n.t('An instruction or fact to keep verbatim'),
        }));
      if (!text?.trim()) return;
      await session.pin(text);
      void vscode.window.showInformationMessage(vscode.l10n.t('Pinned: {0}', text.trim().slice(0, 80)));
    },
    unpin: async () => {
      const pins = await session.pins();
      if (!pins.length) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Headroom: this session has no pins.'));
        return;
      }
      const picked = await vscode.window.showQuickPick(
        pins.map((p) => ({ label: p.text.slice(0, 120), description: new Date(p.createdAt).toLocaleString(), id: p.id })),
        { title: vscode.l10n.t('Headroom: Unpin'), placeHolder: vscode.l10n.t('Which pin to remove?') },
      );
      if (picked) await session.unpin(picked.id);
    },
    openStoredResult: async () => {
      const stored = session.storedResults();
      if (!stored.length) {
        // Nothing listed (no folder open, or none yet): a ref id from elsewhere can still be opened.
        const refId = await vscode.window.showInputBox({
          title: vscode.l10n.t('Headroom: Open Stored Result'),
          prompt: vscode.l10n.t('This session has no stored results. Type the ref_id of one to open it anyway.'),
          placeHolder: 'res_…',
        });
        if (refId?.trim()) await results.open(refId.trim());
        return;
      }
      const picked = await vscode.window.showQuickPick(
        stored.map((r) => ({
          label: r.toolName,
          description: `${formatBytes(r.byteSize)} · ${r.lineCount.toLocaleString('en-US')} lines`,
          detail: `${new Date(r.createdAt).toLocaleString()} · ${r.refId}`,
          meta: r,
        })),
        {
          title: vscode.l10n.t('Headroom: Open Stored Result'),
          placeHolder: vscode.l10n.t('Stored tool results of this session, newest first'),
          matchOnDetail: true,
        },
      );
      if (picked) await results.open(picked.meta.refId, resultTitle(picked.meta));
    },
  };
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

function breakdownMarkdown(usage: ReturnType<SessionHost['measure']>): string {
  // The same rows as the panel's Details view (one home: meterDetails).
  const rows = usage.budget ? meterDetails(usage.budget).map((r) => `| ${r.label} | ${r.value.replace(/\|/g, '\\|')} |`) : [];
  return [
    '# Headroom context breakdown',
    '',
    `Used **${usage.used.toLocaleString('en-US')}** of **${usage.effectiveWindow.toLocaleString('en-US')}** effective tokens (window ${usage.contextWindow.toLocaleString('en-US')}), ${(usage.ratio * 100).toFixed(1)} % — status \`${usage.status}\`.`,
    '',
    '| | |',
    '|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** An editor tab title for a stored result: "run_command output · 35.9 KB". */
function resultTitle(meta: ResultMeta | undefined): string | undefined {
  return meta ? `${meta.toolName} output · ${formatBytes(meta.byteSize)}` : undefined;
}
