/**
 * Composition root, activation half: registers the view and the commands with VS Code and nothing
 * else. Activation is lazy (the view or a command) and must stay cheap (bench: activation_ms ≤ 50):
 * everything heavy lives in dist/host.js (src/platform/host.ts) and is required on first use.
 */
import { createRequire } from 'node:module';
import * as vscode from 'vscode';
import { registerCommands } from './commands/register';
import { createLog } from './platform/log';
import { CHAT_VIEW_ID } from './panel/view-ids';
import type { Host } from './platform/host';
import type { ChatViewProvider } from './panel/chat-view-provider';

/** What `activate` returns; integration tests reach the extension through it. */
export interface HeadroomApi {
  /** The panel provider; loads the host on first access. */
  readonly panel: ChatViewProvider;
  /** The host (session, approvals, commands); loads it on first access. */
  readonly host: Host;
  readonly log: vscode.LogOutputChannel;
  readonly storagePath: string | undefined;
}

/**
 * Loads dist/host.js (esbuild keeps './host' external) on first use. A static import would put the
 * whole host on the activation path; this require stays lazy and resolves next to this bundle.
 */
function requireHostBundle(): typeof import('./platform/host') {
  return createRequire(__filename)('./host') as typeof import('./platform/host');
}

export function activate(context: vscode.ExtensionContext): HeadroomApi {
  const log = createLog();
  context.subscriptions.push(log);
  let host: Host | undefined;
  const getHost = (): Host => {
    if (!host) {
      // Bundled separately (see esbuild.mjs); resolved next to this file at run time.
      const { createHost } = requireHostBundle();
      host = createHost(context, log);
      context.subscriptions.push(host);
      const loaded = host;
      flushOnDeactivate = () => loaded.session.storage.flush();
    }
    return host;
  };
  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, {
      resolveWebviewView: (view) => getHost().panel.resolveWebviewView(view),
    }),
  );
  registerCommands(context, { log, hostCommands: () => getHost().commands });
  log.info(`Headroom activated (storage: ${context.storageUri?.fsPath ?? 'none: no folder open'})`);
  return {
    get panel() {
      return getHost().panel;
    },
    get host() {
      return getHost();
    },
    log,
    storagePath: context.storageUri?.fsPath,
  };
}

let flushOnDeactivate: (() => Promise<void>) | undefined;

/** Flushes the store so nothing written is lost; everything else is disposed through subscriptions. */
export async function deactivate(): Promise<void> {
  await flushOnDeactivate?.();
}
