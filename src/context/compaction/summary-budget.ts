/**
 * The budget of a summary request: the summary's own output (`max_tokens`) is reserved inside
 * the model's window, like any request's, so the request itself can never be refused for its size; a
 * history bigger than the input left is summarized in chunks. Pure; never throws.
 */
import { DEFAULT_BUFFER_FRACTION } from '../models';

/** Output budget of a summary unless configured (`summaryMaxTokens`). */
export const DEFAULT_SUMMARY_MAX_TOKENS = 2000;

export interface SummaryBudgetInput {
  /** The configured output budget of a summary (default `DEFAULT_SUMMARY_MAX_TOKENS`). */
  summaryMaxTokens?: number;
  /** Input tokens a separate summarizer model accepts; when set it is that model's limit, used as is. */
  summarizerWindow?: number;
  /** The agent model's whole window, when known: the summary request must fit it, output included. */
  contextWindow?: number;
  /** The agent model's effective window (the input limit when nothing else is known). */
  effectiveWindow?: number;
}

export interface SummaryBudget {
  /** `max_tokens` of a summary request: the configured budget, at most a quarter of the window. */
  maxOutputTokens: number;
  /** Input tokens one summary request may take (∞ when no limit is known). */
  inputLimit: number;
}

/**
 * The output a summary may produce and the input its request may take. With the agent's window known,
 * input + output + the safety buffer fit the window; a quarter-window cap on the output keeps a small
 * window (4k) able to merge two chunk summaries in one request.
 */
export function summaryBudget(input: SummaryBudgetInput): SummaryBudget {
  const configured = positive(input.summaryMaxTokens) ?? DEFAULT_SUMMARY_MAX_TOKENS;
  const window = positive(input.contextWindow);
  if (input.summarizerWindow !== undefined) return { maxOutputTokens: configured, inputLimit: input.summarizerWindow };
  const maxOutputTokens = window ? Math.max(1, Math.min(configured, Math.floor(window / 4))) : configured;
  const fitted = window ? inputLimitWithin(window, maxOutputTokens) : Infinity;
  return { maxOutputTokens, inputLimit: Math.min(positive(input.effectiveWindow) ?? Infinity, fitted) };
}

/** Input tokens a request reserving `maxOutputTokens` may take in `window`, keeping the safety buffer. */
export function inputLimitWithin(window: number, maxOutputTokens: number): number {
  return Math.max(0, window - maxOutputTokens - Math.ceil(window * DEFAULT_BUFFER_FRACTION));
}

function positive(n: number | undefined): number | undefined {
  return n !== undefined && Number.isFinite(n) && n > 0 ? n : undefined;
}
