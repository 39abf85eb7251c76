import * as vscode from 'vscode';
import { defaultModelFor } from '../context/models';

/** The provider/model part of Headroom's settings, read fresh each time (settings can change). */
export interface ProviderSettings {
  provider: 'anthropic' | 'openai' | 'openai-compatible';
  model: string;
  baseUrl: string | undefined;
}

const PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;

/** Reads `headroom.provider`, `headroom.model`, `headroom.baseUrl`; bad values fall back to defaults. */
export function readProviderSettings(): ProviderSettings {
  const cfg = vscode.workspace.getConfiguration('headroom');
  const rawProvider = cfg.get<string>('provider');
  const provider = (PROVIDERS as readonly string[]).includes(rawProvider ?? '')
    ? (rawProvider as ProviderSettings['provider'])
    : 'anthropic';
  const model = (cfg.get<string>('model') || '').trim() || defaultModelFor(provider) || 'llama3.1';
  const baseUrl = (cfg.get<string>('baseUrl') || '').trim() || undefined;
  return { provider, model, baseUrl };
}
