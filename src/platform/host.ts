/**
 * The heavy half of the composition root, bundled separately as dist/host.js and required on first
 * use (the view resolving or a command running), so activation stays cheap: zod, the protocol, the
 * panel and later the engine, store and providers load here, never on the activation path.
 */
import * as vscode from 'vscode';
import { newId } from '../common/ids';
import { readProviderSettings } from '../config/settings';
import { ChatViewProvider } from '../panel/chat-view-provider';
import { PROTOCOL_VERSION, SnapshotView } from '../protocol/messages';

export interface Host extends vscode.Disposable {
  readonly panel: ChatViewProvider;
}

export function createHost(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Host {
  const sessionId = newId('ses');
  const disposables: vscode.Disposable[] = [];
  const panel = new ChatViewProvider({
    extensionUri: context.extensionUri,
    log,
    snapshot: async (): Promise<SnapshotView> => {
      const settings = readProviderSettings();
      return {
        protocolVersion: PROTOCOL_VERSION,
        extensionVersion: String(context.extension.packageJSON.version ?? '0.0.0'),
        workspaceName: vscode.workspace.name ?? null,
        storageAvailable: context.storageUri !== undefined,
        trusted: vscode.workspace.isTrusted,
        session: { id: sessionId, title: 'New session', messageCount: 0 },
        config: { provider: settings.provider, model: settings.model, hasApiKey: null, baseUrl: settings.baseUrl },
      };
    },
    runCommand: async (name) => {
      await vscode.commands.executeCommand(`headroom.${name}`);
    },
  });
  disposables.push(panel);
  disposables.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('headroom')) void panel.postSnapshot();
    }),
  );
  log.info('Headroom host loaded');
  return {
    panel,
    dispose: () => disposables.splice(0).reverse().forEach((d) => d.dispose()),
  };
}
