/**
 * OpenAI's model list (https://developers.openai.com/api/reference/resources/models/methods/list):
 * the ids a key may use, nothing more (no window, no capabilities: those come from the model table).
 * Only chat models are kept: embeddings, audio, image, moderation and realtime models cannot run a
 * coding session. Pure apart from the SDK call; the lister throws (the catalogue keeps what it had).
 */
import OpenAI from 'openai';
import type { ProviderModelInfo } from './model-info';

const MAX_MODELS = 1_000;
const ID = /^[A-Za-z0-9][\w.:@-]{0,199}$/;
const CHAT = /^(gpt-|o\d|codex|chatgpt)/;
const NOT_CHAT = /(audio|realtime|tts|transcribe|image|search|embedding|moderation|dall-e|whisper|instruct|-live)/;

/** Whether a listed id is a chat model Headroom can talk to. */
export function isChatModelId(id: string): boolean {
  return ID.test(id) && CHAT.test(id) && !NOT_CHAT.test(id);
}

/** Lists the key's chat models (their order: the API's). Throws what the SDK throws. */
export async function listOpenAIModels(
  options: { apiKey: string; baseUrl?: string; timeoutMs?: number },
  signal?: AbortSignal,
): Promise<ProviderModelInfo[]> {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseUrl || undefined,
    maxRetries: 1,
    timeout: options.timeoutMs ?? 10_000,
  });
  const out: ProviderModelInfo[] = [];
  for await (const m of client.models.list({ signal })) {
    if (typeof m?.id === 'string' && isChatModelId(m.id) && !out.some((o) => o.id === m.id)) out.push({ id: m.id, lifecycle: 'active' });
    if (out.length >= MAX_MODELS) break;
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}
