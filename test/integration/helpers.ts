import * as vscode from 'vscode';
import type { HeadroomApi } from '../../src/extension';
import { storeApiKey } from '../../src/providers/credentials';

export const EXTENSION_ID = 'headroom-dev.headroom';

/** Activates Headroom (idempotent) and returns its API. */
export async function activateHeadroom(): Promise<HeadroomApi> {
  const ext = vscode.extensions.getExtension<HeadroomApi>(EXTENSION_ID);
  if (!ext) throw new Error(`Extension ${EXTENSION_ID} is not installed in this VS Code`);
  return ext.isActive ? ext.exports : await ext.activate();
}

/** Resolves with the first value `pick` returns for an event, or rejects after `ms`. */
export function waitFor<E, T>(
  event: (listener: (e: E) => void) => { dispose(): void },
  pick: (e: E) => T | undefined,
  ms = 20_000,
  what = 'event',
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`Timed out after ${ms} ms waiting for ${what}`));
    }, ms);
    const sub = event((e) => {
      const v = pick(e);
      if (v !== undefined) {
        clearTimeout(timer);
        sub.dispose();
        resolve(v);
      }
    });
  });
}

/**
 * Points Headroom at a fake provider (Anthropic protocol) through real settings, with a key stored as
 * "Headroom: Set API Key" stores it: bound to the fake server's origin, so it is sent there without a
 * question (a key bound elsewhere, e.g. ANTHROPIC_API_KEY, would make Headroom ask first).
 */
export async function useFakeProvider(baseUrl: string): Promise<void> {
  const api = await activateHeadroom();
  await storeApiKey('anthropic', api.host.secrets, 'sk-ant-integration-test-key', baseUrl);
  const cfg = vscode.workspace.getConfiguration('headroom');
  await cfg.update('provider', 'anthropic', vscode.ConfigurationTarget.Global);
  await cfg.update('model', 'claude-sonnet-4-5', vscode.ConfigurationTarget.Global);
  await cfg.update('baseUrl', baseUrl, vscode.ConfigurationTarget.Global);
}

/** Undoes `useFakeProvider` and any model overrides a suite set. */
export async function resetProviderSettings(): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('headroom');
  await cfg.update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
  await cfg.update('models', undefined, vscode.ConfigurationTarget.Global);
}
