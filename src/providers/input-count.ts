/**
 * Exact input counts before sending, where the provider can count: a small provider-neutral port.
 * Anthropic counts with `POST /v1/messages/count_tokens` (free, rate-limited on its own,
 * https://platform.claude.com/docs/en/build-with-claude/token-counting), OpenAI with
 * `POST /v1/responses/input_tokens`
 * (https://developers.openai.com/api/reference/resources/responses/subresources/input_tokens/methods/count),
 * VS Code's chat models with `LanguageModelChat.countTokens`; a local server (llama.cpp, vLLM
 * `/tokenize`) plugs in the same way. Implementations never reject: anything that goes wrong
 * (offline, refused, no key, a timeout through `signal`) is `undefined`, and the safe estimate stands.
 */
import { errorMessage } from '../common/errors';
import type { ProviderRequest } from './types';

export interface InputCounter {
  /** The input tokens `request` will be billed (system, tools, messages, the trailing note); undefined when it cannot be counted now. */
  countInput(request: ProviderRequest, signal?: AbortSignal): Promise<number | undefined>;
}

/** A count the provider answered with, checked (a hostile or broken answer is no count). */
export function checkedCount(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n < 100_000_000 ? n : undefined;
}

/** An `InputCounter` from a function that may throw: every failure becomes `undefined` (reported through `onError`). */
export function safeCounter(
  count: (request: ProviderRequest, signal?: AbortSignal) => Promise<unknown>,
  onError?: (message: string) => void,
): InputCounter {
  return {
    async countInput(request, signal) {
      try {
        if (signal?.aborted) return undefined;
        return checkedCount(await count(request, signal));
      } catch (err) {
        onError?.(errorMessage(err));
        return undefined;
      }
    },
  };
}
