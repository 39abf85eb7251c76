/**
 * Which provider can list its models with a key, and how: Anthropic's Models API (windows,
 * capabilities, lifecycle) and OpenAI's model list (ids). The SDK is loaded on the first call, so
 * activation does not pay for it. VS Code's models and local servers are listed elsewhere (the editor,
 * `server-models.ts`). Pure; never throws itself (the lister it returns may).
 */
import type { ModelLister } from './model-catalogue';
import type { ProviderId } from './types';

export interface ListerOptions {
  apiKey: string;
  baseUrl?: string;
  timeoutMs?: number;
}

/** The lister for `provider`, or undefined when its API has no model list Headroom reads. */
export function modelLister(provider: ProviderId, options: ListerOptions): ModelLister | undefined {
  switch (provider) {
    case 'anthropic':
      return (signal) => import('./anthropic-models').then((m) => m.listAnthropicModels(options, signal));
    case 'openai':
      return (signal) => import('./openai-models').then((m) => m.listOpenAIModels(options, signal));
    default:
      return undefined;
  }
}
