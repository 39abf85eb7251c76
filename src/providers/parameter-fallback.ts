/**
 * A request parameter the model refuses is dropped, never a failed turn. When a provider answers 400
 * naming a parameter the request carried — a thinking budget on an adaptive-only model
 * ("`thinking.type.enabled` is not supported for this model",
 * https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking), a sampling parameter
 * ("`temperature` is deprecated for this model",
 * https://platform.claude.com/docs/en/about-claude/models/migration-guide; OpenAI: "Unsupported
 * parameter: 'temperature' is not supported with this model",
 * https://developers.openai.com/api/docs/guides/reasoning), an effort level it does not declare —
 * the parameter is remembered as refused for that model, the request is sent again once without it,
 * and the person is told once. Pure; never throws (a `Provider` wrapper keeps the stream contract).
 */
import { reasoningEffort } from './openai-convert';
import type { Provider } from './provider';
import type { AssistantMessage, ProviderError, ProviderRequest, StreamEvent } from './types';

/** What a request may carry that a model can refuse. */
export type RefusableParameter = 'thinking-budget' | 'thinking-adaptive' | 'thinking-disabled' | 'effort' | 'temperature';

const REFUSALS: ReadonlyArray<[RefusableParameter, RegExp]> = [
  ['thinking-budget', /`?thinking\.type\.enabled`? is not supported|budget_tokens`? (?:is )?(?:not supported|deprecated)/i],
  ['thinking-adaptive', /`?thinking\.type\.adaptive`? is not supported|adaptive thinking is not supported/i],
  ['thinking-disabled', /`?thinking\.type\.disabled`? is not supported/i],
  [
    'effort',
    /effort`?(?::| level| is)[^.]*not supported|'reasoning\.effort' does not support|Unsupported parameter: 'reasoning(?:\.effort|_effort)?'/i,
  ],
  ['temperature', /`?(?:temperature|top_p|top_k)`? is deprecated for this model|Unsupported parameter: '(?:temperature|top_p|top_k)'/i],
];

/** The parameter a 400 names as refused, if it names one Headroom can drop. */
export function refusedParameter(error: ProviderError | undefined): RefusableParameter | undefined {
  if (!error || error.kind !== 'invalid_request' || (error.status !== undefined && error.status !== 400)) return undefined;
  return REFUSALS.find(([, pattern]) => pattern.test(error.message))?.[0];
}

/** `req` without `p` (a refused budget becomes adaptive thinking at the effort it stood for); undefined when `req` does not carry it. */
export function withoutParameter(req: ProviderRequest, p: RefusableParameter): ProviderRequest | undefined {
  const t = req.thinking;
  const rest = (): ProviderRequest => {
    const { thinking: _drop, ...r } = req;
    return r;
  };
  switch (p) {
    case 'thinking-budget':
      return t?.mode === 'budget' ? { ...req, thinking: { mode: 'adaptive', effort: reasoningEffort(t.budgetTokens) } } : undefined;
    case 'thinking-adaptive':
      return t?.mode === 'adaptive' ? rest() : undefined;
    case 'thinking-disabled':
      return t?.mode === 'disabled' ? rest() : undefined;
    case 'effort':
      if (t?.mode === 'effort') return rest();
      return t?.mode === 'adaptive' && t.effort ? { ...req, thinking: { mode: 'adaptive' } } : undefined;
    case 'temperature': {
      if (req.temperature === undefined) return undefined;
      const { temperature: _drop, ...r } = req;
      return r;
    }
  }
}

/** The parameters each model refused, shared by every request of the extension's life. */
export class RefusedParameters {
  private readonly refused = new Map<string, Set<RefusableParameter>>();

  /** @param onLearn called once per model and parameter, with the provider's words (to tell the person). */
  constructor(private readonly onLearn?: (model: string, parameter: RefusableParameter, message: string) => void) {}

  /** `req` with every parameter its model refused before taken out. */
  apply(req: ProviderRequest): ProviderRequest {
    let out = req;
    for (const p of this.refused.get(req.model) ?? []) out = withoutParameter(out, p) ?? out;
    return out;
  }

  /** Remembers a refusal; true the first time for this model and parameter. */
  learn(model: string, p: RefusableParameter, message: string): boolean {
    const set = this.refused.get(model) ?? new Set<RefusableParameter>();
    this.refused.set(model, set);
    if (set.has(p)) return false;
    set.add(p);
    try {
      this.onLearn?.(model, p, message);
    } catch {
      // Telling the person is best effort.
    }
    return true;
  }
}

/**
 * `provider` with refused parameters left out: known refusals are applied before sending; a new one
 * (a 400 before any content) is learned and the request sent again, once per parameter. Every event
 * but the failed attempt's `done` passes through as it comes.
 */
export function withParameterFallback(provider: Provider, refused: RefusedParameters): Provider {
  return {
    id: provider.id,
    async *stream(req: ProviderRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
      let request = refused.apply(req);
      const tried = new Set<RefusableParameter>();
      for (;;) {
        let done: AssistantMessage | undefined;
        for await (const e of provider.stream(request, signal)) {
          if (e.type === 'done') done = e.message;
          else yield e;
        }
        const p = done && done.content.length === 0 ? refusedParameter(done.error) : undefined;
        const next = p && !tried.has(p) ? withoutParameter(request, p) : undefined;
        if (!done || !p || !next) {
          if (done) yield { type: 'done', message: done };
          return;
        }
        tried.add(p);
        refused.learn(req.model, p, done.error?.message ?? '');
        request = next;
      }
    },
  };
}
