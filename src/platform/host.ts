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
import { resolveApiKey } from '../providers/credentials';
import { selectModel, setApiKey } from '../commands/provider-commands';
import { vscodeSecretStore } from './secret-store';

export interface Host extends vscode.Disposable {
  readonly panel: ChatViewProvider;
  /** Implementations of the commands that need more than the activation bundle. */
  readonly commands: {
    setApiKey(): Promise<void>;
    selectModel(): Promise<void>;
  };
}

export function createHost(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Host {
  const sessionId = newId('ses');
  const disposables: vscode.Disposable[] = [];
  const secrets = vscodeSecretStore(context.secrets);
  const panel = new ChatViewProvider({
    extensionUri: context.extensionUri,
    log,
    snapshot: async (): Promise<SnapshotView> => {
      const settings = readProviderSettings();
      // OpenAI-compatible servers often need no key; they need a base URL instead.
      const hasApiKey =
        settings.provider === 'openai-compatible'
          ? settings.baseUrl !== undefined
          : (await resolveApiKey(settings.provider, secrets)) !== undefined;
      return {
        protocolVersion: PROTOCOL_VERSION,
        extensionVersion: String(context.extension.packageJSON.version ?? '0.0.0'),
        workspaceName: vscode.workspace.name ?? null,
        storageAvailable: context.storageUri !== undefined,
        trusted: vscode.workspace.isTrusted,
        session: { id: sessionId, title: 'New session', messageCount: 0 },
        config: { provider: settings.provider, model: settings.model, hasApiKey, baseUrl: settings.baseUrl },
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
  disposables.push(context.secrets.onDidChange(() => void panel.postSnapshot()));
  log.info('Headroom host loaded');
  return {
    panel,
    commands: {
      setApiKey: () => setApiKey(secrets, log),
      selectModel: () => selectModel(),
    },
    dispose: () => disposables.splice(0).reverse().forEach((d) => d.dispose()),
  };
}
