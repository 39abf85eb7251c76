import * as vscode from 'vscode';

/** The provider/model part of Headroom's settings, read fresh each time (settings can change). */
export interface ProviderSettings {
  provider: 'anthropic' | 'openai' | 'openai-compatible';
  model: string;
  baseUrl: string | undefined;
}

const PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;
const DEFAULT_MODEL: Record<ProviderSettings['provider'], string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1',
  'openai-compatible': 'llama3.1',
};

/** Reads `headroom.provider`, `headroom.model`, `headroom.baseUrl`; bad values fall back to defaults. */
export function readProviderSettings(): ProviderSettings {
  const cfg = vscode.workspace.getConfiguration('headroom');
  const rawProvider = cfg.get<string>('provider');
  const provider = (PROVIDERS as readonly string[]).includes(rawProvider ?? '')
    ? (rawProvider as ProviderSettings['provider'])
    : 'anthropic';
  const model = (cfg.get<string>('model') || '').trim() || DEFAULT_MODEL[provider];
  const baseUrl = (cfg.get<string>('baseUrl') || '').trim() || undefined;
  return { provider, model, baseUrl };
}
