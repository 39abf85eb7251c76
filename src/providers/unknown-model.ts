/**
 * Whether a failed request says the provider does not know the model (Anthropic answers 404
 * `not_found_error` "model: <id>", https://platform.claude.com/docs/en/api/errors; OpenAI 404
 * `model_not_found` "The model `<id>` does not exist", https://developers.openai.com/api/docs/guides/error-codes):
 * then the provider's model list is read again before the next request. Pure; never throws.
 */
import type { ProviderError } from './types';

const UNKNOWN_MODEL = [/\bmodel: \S+/, /model_not_found/i, /the model `?[^`\s]+`? does not exist/i, /\bunknown model\b/i];

export function saysModelUnknown(error: Pick<ProviderError, 'status' | 'message'> | undefined): boolean {
  if (!error) return false;
  return (error.status === 404 || error.status === undefined) && UNKNOWN_MODEL.some((p) => p.test(error.message));
}
