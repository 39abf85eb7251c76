/**
 * The running chat inside VS Code: the session service (`app/session-service.ts`) over a host
 * environment made of VS Code's storage, workspace folder, trust, settings, log, SecretStorage, the
 * approval broker and the Language Model API. Everything the session does is in `app/`; this file
 * only answers the service's questions with `vscode`.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostEnvironment } from '../app/host-environment';
import { SessionService } from '../app/session-service';
import { readCompactionSettings, readContextSettings, readMaxIterations } from '../config/context-settings';
import { readExternalToolsAllow, readProviderSettings, readSecretFilesAllow } from '../config/settings';
import type { SecretStore } from '../providers/credentials';
import { releaseApiKey } from '../providers/key-release';
import type { ApprovalBroker } from './approvals';
import { editorSources } from './editor-mentions';
import { askToSendKey } from './key-prompt';
import { createLmToolPort } from './lm-tools';
import { sharedStorageRoot } from './storage-root';
import { createVscodeWorkspace } from './vscode-workspace';
import { createVscodeLmPort, pickChatModel } from './vscode-lm';

export type { SessionState } from '../app/session-service';

export interface SessionHostDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  secrets: SecretStore;
  approvals: ApprovalBroker;
}

/** The host environment with `vscode`: each question answered from the editor at the time it is asked. */
export function vscodeEnvironment(deps: SessionHostDeps): HostEnvironment {
  const { context, log } = deps;
  const dist = path.join(context.extensionUri.fsPath, 'dist');
  return {
    storageRoot: context.storageUri && sharedStorageRoot(context.storageUri.fsPath, existsSync),
    assets: { wasmPath: path.join(dist, 'sql-wasm.wasm'), tokenWorkerPath: path.join(dist, 'token-worker.js') },
    folder: () => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      return folder && { root: folder.uri.fsPath, workspace: () => createVscodeWorkspace(folder, log) };
    },
    workspaceName: () => vscode.workspace.name,
    trusted: () => vscode.workspace.isTrusted,
    settings: {
      provider: readProviderSettings,
      context: readContextSettings,
      compaction: readCompactionSettings,
      maxIterations: readMaxIterations,
      externalToolsAllow: readExternalToolsAllow,
      secretFilesAllow: readSecretFilesAllow,
    },
    log,
    warn: (message) => {
      log.warn(message);
      void vscode.window.showWarningMessage(`Headroom: ${message}`);
    },
    releaseKey: (provider, baseUrl, options) =>
      releaseApiKey({
        provider,
        baseUrl,
        secrets: deps.secrets,
        ask: options?.ask === false ? () => Promise.resolve(undefined) : askToSendKey,
      }),
    approvals: deps.approvals,
    externalTools: createLmToolPort,
    languageModel: createVscodeLmPort,
    editorSources,
    languageModelWindow: async (model) => {
      const chat = await pickChatModel(model).catch(() => undefined);
      return chat ? { contextWindow: chat.maxInputTokens, kind: 'VS Code language model' } : undefined;
    },
  };
}

/**
 * The session service as the panel, the commands and the status bar use it (the same owners and
 * events); see `app/session-service.ts` for what each owner does.
 */
export class SessionHost extends SessionService {
  constructor(deps: SessionHostDeps) {
    super(vscodeEnvironment(deps));
  }
}
