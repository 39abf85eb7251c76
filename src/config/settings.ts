import * as vscode from 'vscode';
import { defaultModelFor } from '../context/models';
import type { ProviderId } from '../providers/types';
import type { AutoApproveSettings } from '../tools/approval-policy';

/** The provider/model part of Headroom's settings, read fresh each time (settings can change). */
export interface ProviderSettings {
  provider: ProviderId;
  /** For 'vscode-lm', '' means the first chat model VS Code offers. */
  model: string;
  baseUrl: string | undefined;
}

const PROVIDERS: readonly ProviderId[] = ['anthropic', 'openai', 'openai-compatible', 'vscode-lm'];

/** Reads `headroom.provider`, `headroom.model`, `headroom.baseUrl`; bad values fall back to defaults. */
export function readProviderSettings(): ProviderSettings {
  const cfg = vscode.workspace.getConfiguration('headroom');
  const rawProvider = cfg.get<string>('provider');
  const provider = (PROVIDERS as readonly string[]).includes(rawProvider ?? '')
    ? (rawProvider as ProviderSettings['provider'])
    : 'anthropic';
  const configured = (cfg.get<string>('model') || '').trim();
  const model = provider === 'vscode-lm' ? configured : configured || defaultModelFor(provider) || 'llama3.1';
  const baseUrl = (cfg.get<string>('baseUrl') || '').trim() || undefined;
  return { provider, model, baseUrl };
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
