import * as vscode from 'vscode';
import type { SecretStore } from '../providers/credentials';

/** Adapts VS Code SecretStorage to the pure `SecretStore` port. Values are never logged. */
export function vscodeSecretStore(secrets: vscode.SecretStorage): SecretStore {
  return {
    get: async (key) => secrets.get(key),
    store: async (key, value) => secrets.store(key, value),
    delete: async (key) => secrets.delete(key),
  };
}
