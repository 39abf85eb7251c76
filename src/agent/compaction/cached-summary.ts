/**
 * The cache-preserving summary request for a view, when it may be sent: the agent's own prefix
 * (`buildCachedSummaryRequest`), only with the agent's model, and only when it fits the model's whole
 * window but its output and a margin. Shared by a pass (`summary-step.ts`) and the summary prepared in
 * the background (`compaction-chain.ts`), so both hit the agent's prompt cache. Never throws if the
 * counter does not.
 */
import { buildCachedSummaryRequest, inputLimitWithin, type AgentPrefix } from '../../context/compaction';
import { byteEstimate } from '../../context/utf8';
import type { Message, ProviderRequest } from '../../providers/types';
import { requestTokensInSlices } from './summarizer';

export interface CachedSummaryInput {
  /** The view as the agent sends it. */
  view: readonly Message[];
  prefix: AgentPrefix | undefined;
  /** The first message kept verbatim: the summary covers what comes before it. */
  keptFrom: Message | undefined;
  focus?: string;
  pins: readonly string[];
  maxOutputTokens: number;
  /** `headroom.summarizerModel`, when set: another model has another cache, so no cached request. */
  summarizerModel?: string;
  summarizerWindow?: number;
  /** The summarizer's input limit, for a prefix that does not say its window. */
  fallbackLimit: number;
  /**
   * The view's own counts (memoized, calibrated: the agent's view was counted for its own requests);
   * the summary path's safe estimates over-count by a seventh and declined requests that fit.
   */
  tokensOf: (message: Message) => number;
}

export async function fittingCachedSummary(input: CachedSummaryInput): Promise<ProviderRequest | undefined> {
  const { prefix } = input;
  if (!prefix || (input.summarizerModel && input.summarizerModel !== prefix.model)) return undefined;
  const request = buildCachedSummaryRequest(input.view, prefix, {
    keptFrom: input.keptFrom,
    focus: input.focus,
    pins: input.pins,
    maxOutputTokens: input.maxOutputTokens,
  });
  const prefixTokens = byteEstimate(Buffer.byteLength(JSON.stringify(request.tools), 'utf8'));
  // It may use the whole window but its own output and a 2 % margin (not only the agent's effective window).
  const window = prefix.contextWindow;
  const limit = window
    ? Math.min(input.summarizerWindow ?? Infinity, inputLimitWithin(window, request.maxOutputTokens))
    : input.fallbackLimit;
  return (await requestTokensInSlices(request, input.tokensOf)) + prefixTokens > limit ? undefined : request;
}
