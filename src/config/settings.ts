import * as vscode from 'vscode';
import { parseProviderSettings, type ProviderSettings } from '../context/provider-settings';
import type { AutoApproveSettings } from '../tools/approval-policy';

export type { ProviderSettings } from '../context/provider-settings';

/** Reads `headroom.provider`, `headroom.model`, `headroom.baseUrl`, `headroom.thinking`; bad values fall back to defaults. */
export function readProviderSettings(): ProviderSettings {
  const cfg = vscode.workspace.getConfiguration('headroom');
  return parseProviderSettings({
    provider: cfg.get<unknown>('provider'),
    model: cfg.get<unknown>('model'),
    baseUrl: cfg.get<unknown>('baseUrl'),
    thinking: cfg.get<unknown>('thinking'),
  });
}

/** Reads `headroom.autoApprove.edits` and `headroom.autoApprove.commands`; bad values mean "ask". */
export function readAutoApproveSettings(): AutoApproveSettings {
  const cfg = vscode.workspace.getConfiguration('headroom.autoApprove');
  const commands = cfg.get<unknown>('commands');
  return {
    edits: cfg.get<unknown>('edits') === true,
    commands: Array.isArray(commands) ? commands.filter((c): c is string => typeof c === 'string' && c.trim() !== '') : [],
  };
}

/**
 * `headroom.commandEnvAllowList`: names of environment variables passed to `run_command` although
 * they look like secrets. Application scope: a workspace's settings cannot add to it.
 */
export function readCommandEnvAllowList(): string[] {
  const raw = vscode.workspace.getConfiguration('headroom').get<unknown>('commandEnvAllowList');
  return Array.isArray(raw) ? raw.filter((n): n is string => typeof n === 'string' && n.trim() !== '') : [];
}

/**
 * `headroom.externalTools.allow`: external tools (names or globs) that run without asking. A
 * machine-scoped setting, so a repository's settings cannot allow-list anything.
 */
export function readExternalToolsAllow(): string[] {
  const v = vscode.workspace.getConfiguration('headroom').get<unknown>('externalTools.allow');
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}

/**
 * `headroom.secretFiles.allow`: globs of workspace files that may reach the model although they look
 * like secrets (read without asking, attached, searched). Application scope: a repository's settings
 * cannot open its own .env to the model.
 */
export function readSecretFilesAllow(): string[] {
  const v = vscode.workspace.getConfiguration('headroom').get<unknown>('secretFiles.allow');
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}
