/**
 * One probe per local server kind: each asks the endpoints only that server has, the way its docs
 * say, and turns the answer into the window Headroom budgets to — or, when the answer is missing, a
 * small window it can trust until the model is loaded. Pure apart from the injected `fetch`; never
 * throws (`getJson` swallows every failure).
 */
import { z } from 'zod';
import { getJson, type FetchLike, type ServerWindow } from './server-window';

/**
 * Ollama's context when a model is not loaded and nothing says otherwise: 2,048 before 0.6.7
 * (https://github.com/ollama/ollama/commit/44b466eeb "config: update default context length to
 * 4096"), then 4,096, and from 0.15.5 at least 4,096 (4k / 32k / 256k by VRAM,
 * https://github.com/ollama/ollama/blob/main/docs/context-length.mdx).
 */
export const OLLAMA_DEFAULT_CONTEXT = 4096;
export const OLLAMA_OLD_DEFAULT_CONTEXT = 2048;

/**
 * What Headroom budgets an LM Studio model to before it is loaded: LM Studio loads a model on its
 * first request (JIT, on by default: https://lmstudio.ai/docs/developer/core/ttl-and-auto-evict) with
 * its load settings, whose context is not known until then; its list's example of a loaded instance
 * runs at 4,096 (https://lmstudio.ai/docs/developer/rest/list). Not `max_context_length`, which is
 * the model's maximum, often 32k–262k.
 */
export const LMSTUDIO_UNLOADED_CONTEXT = 4096;

const count = z.number().int().positive();

/** `a` < `b` for dotted versions ("0.5.7" < "0.12.6"); pre-release suffixes are ignored. */
export function versionBelow(a: string, b: string): boolean {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) < (pb[i] ?? 0);
  return false;
}

const OllamaPs = z.object({
  models: z.array(z.object({ name: z.string().optional(), model: z.string().optional(), context_length: count.optional() })).max(1000),
});
const OllamaShow = z.object({ model_info: z.record(z.string(), z.unknown()).optional(), parameters: z.string().max(100_000).optional() });
const OllamaVersion = z.object({ version: z.string().max(100) });

/** Ollama names a model `name:tag`; a request for `name` means `name:latest`. */
const ollamaName = (m: string) => (m.includes(':') ? m : `${m}:latest`);

/**
 * Ollama (https://github.com/ollama/ollama/blob/main/docs/api.md): `/api/version`; `/api/ps` lists the
 * loaded models with `context_length` (from 0.9.7, https://github.com/ollama/ollama/commit/34088dbcf);
 * `/api/show` gives the Modelfile's `num_ctx` in `parameters` and the model's maximum in `model_info`.
 * Headroom then sends the window it budgets to with every request (`ollama-chat.ts`), so the server
 * runs with it: the loaded context (no reload), else the Modelfile's, else the default of that
 * version; only a model not loaded yet on a server that will tell its context afterwards is left
 * to the server's own choice for the first request and read back after it.
 */
export async function probeOllama(root: string, model: string, fetch: FetchLike, timeoutMs: number): Promise<ServerWindow | undefined> {
  const ps = await getJson(fetch, `${root}/api/ps`, OllamaPs, timeoutMs);
  if (!ps) return undefined;
  const [about, show] = await Promise.all([
    getJson(fetch, `${root}/api/version`, OllamaVersion, timeoutMs),
    getJson(fetch, `${root}/api/show`, OllamaShow, timeoutMs, { model }),
  ]);
  const version = about?.version;
  const below = (v: string) => version !== undefined && versionBelow(version, v);
  const maxEntry = Object.entries(show?.model_info ?? {}).find(([k, v]) => k.endsWith('.context_length') && typeof v === 'number');
  const modelMax = maxEntry && (maxEntry[1] as number) > 0 ? (maxEntry[1] as number) : undefined;
  const loaded = ps.models.find((m) =>
    [m.name, m.model].some((n) => n !== undefined && ollamaName(n) === ollamaName(model)),
  )?.context_length;
  const numCtx = Number(/^\s*num_ctx\s+(\d+)/m.exec(show?.parameters ?? '')?.[1]) || undefined;
  const honoursTruncate = version !== undefined && !below('0.12.6');
  const warnings: string[] = [];
  let contextWindow: number;
  let known = true;
  if (loaded) contextWindow = loaded;
  else if (numCtx) contextWindow = numCtx;
  else if (below('0.6.7')) contextWindow = OLLAMA_OLD_DEFAULT_CONTEXT;
  else if (below('0.9.7')) contextWindow = OLLAMA_DEFAULT_CONTEXT;
  else {
    contextWindow = OLLAMA_DEFAULT_CONTEXT;
    known = false;
    warnings.push(
      `Ollama has not loaded ${model} yet and its Modelfile sets no num_ctx: Headroom budgets to ${OLLAMA_DEFAULT_CONTEXT} tokens until Ollama has loaded it, then reads the context it chose.`,
    );
  }
  if (modelMax !== undefined && contextWindow < modelMax && known) {
    warnings.push(
      `Ollama serves ${model} with a ${contextWindow}-token context (the model supports ${modelMax}); Headroom asks Ollama for exactly that with each request. ` +
        'For more, set a larger contextWindow for the model in headroom.models.',
    );
  }
  // 0.30.0 counted only what it had to evaluate (https://github.com/ollama/ollama/issues/16414, fixed in 0.30.1).
  const uncachedUsage = version !== undefined && !below('0.30.0') && below('0.30.1');
  if (uncachedUsage)
    warnings.push(
      `Ollama ${version} reports only the prompt tokens it did not have cached; Headroom adds the cached part itself (fixed in Ollama 0.30.1).`,
    );
  return {
    kind: 'ollama',
    contextWindow,
    modelMax,
    warnings,
    loaded: known,
    truncates: !honoursTruncate,
    ollama: { version, numCtxKnown: known, uncachedUsage },
  };
}

const LmStudioV1 = z.object({
  models: z
    .array(
      z.object({
        key: z.string(),
        max_context_length: count.optional(),
        loaded_instances: z.array(z.object({ id: z.string(), config: z.object({ context_length: count.optional() }) })).max(64),
      }),
    )
    .max(2000),
});
const LmStudioV0 = z.object({
  data: z
    .array(
      z.object({
        id: z.string(),
        state: z.string().optional(),
        max_context_length: count.optional(),
        loaded_context_length: count.optional(),
      }),
    )
    .max(2000),
});

/** LM Studio drops the middle of a prompt over its context without a word (truncateMiddle, its default policy). */
function lmStudioWindow(model: string, loaded: number | undefined, modelMax: number | undefined, why: string): ServerWindow {
  if (loaded) return { kind: 'lmstudio', contextWindow: loaded, modelMax, warnings: [], loaded: true, truncates: true };
  const assumed = Math.min(LMSTUDIO_UNLOADED_CONTEXT, modelMax ?? LMSTUDIO_UNLOADED_CONTEXT);
  return {
    kind: 'lmstudio',
    contextWindow: assumed,
    modelMax,
    warnings: [
      `LM Studio ${why} ${model}: Headroom budgets to ${assumed} tokens (not its ${modelMax ?? 'unknown'}-token maximum) until it can read the loaded context.`,
    ],
    loaded: false,
    truncates: true,
  };
}

/**
 * LM Studio: `/api/v1/models` (0.4.0 and later, https://lmstudio.ai/docs/developer/rest/list) lists each
 * model's `loaded_instances[].config.context_length`; older servers only have `/api/v0/models`
 * (https://lmstudio.ai/docs/developer/rest/endpoints), whose documented fields are `state` and
 * `max_context_length` (some versions add `loaded_context_length`). A model not loaded, or loaded with a
 * context the server does not tell, is budgeted small and asked again after the next request.
 */
export async function probeLmStudio(root: string, model: string, fetch: FetchLike, timeoutMs: number): Promise<ServerWindow | undefined> {
  const v1 = await getJson(fetch, `${root}/api/v1/models`, LmStudioV1, timeoutMs);
  if (v1) {
    const row = v1.models.find((m) => m.key === model || m.loaded_instances.some((i) => i.id === model));
    if (!row)
      return { kind: 'lmstudio', contextWindow: 0, warnings: [`LM Studio does not list ${model}.`], loaded: false, truncates: true };
    const instance = row.loaded_instances.find((i) => i.id === model) ?? row.loaded_instances[0];
    return lmStudioWindow(model, instance?.config.context_length, row.max_context_length, 'has not loaded');
  }
  const v0 = await getJson(fetch, `${root}/api/v0/models`, LmStudioV0, timeoutMs);
  if (!v0) return undefined;
  const rows = v0.data.filter((m) => m.id === model);
  const row = rows.find((m) => m.state === 'loaded') ?? rows[0];
  if (!row) return { kind: 'lmstudio', contextWindow: 0, warnings: [`LM Studio does not list ${model}.`], loaded: false, truncates: true };
  const why = row.state === 'loaded' ? 'does not say the context it loaded' : 'has not loaded';
  return lmStudioWindow(model, row.loaded_context_length, row.max_context_length, why);
}

const LlamaCppProps = z.object({
  default_generation_settings: z.object({ n_ctx: count.optional() }).optional(),
  n_ctx: count.optional(),
  total_slots: count.optional(),
});
const LlamaCppSlots = z.array(z.object({ n_ctx: count })).max(1024);

/**
 * llama.cpp's server (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md): the
 * context is split over `total_slots` slots and one request runs in one slot, so its window is a
 * slot's: `/props` `default_generation_settings.n_ctx`, the smallest of `/slots` `[].n_ctx` when there
 * are several, else a top-level `n_ctx` divided by the slots. It refuses a longer prompt
 * (`exceed_context_size_error`).
 */
export async function probeLlamaCpp(root: string, fetch: FetchLike, timeoutMs: number): Promise<ServerWindow | undefined> {
  const props = await getJson(fetch, `${root}/props`, LlamaCppProps, timeoutMs);
  if (!props) return undefined;
  const slotCount = props.total_slots ?? 1;
  let nCtx = props.default_generation_settings?.n_ctx ?? (props.n_ctx ? Math.floor(props.n_ctx / slotCount) : undefined);
  if (slotCount > 1) {
    const slots = await getJson(fetch, `${root}/slots`, LlamaCppSlots, timeoutMs);
    if (slots?.length) nCtx = Math.min(nCtx ?? Infinity, ...slots.map((s) => s.n_ctx));
  }
  return nCtx ? { kind: 'llamacpp', contextWindow: nCtx, warnings: [], loaded: true, truncates: false } : undefined;
}

const VllmModels = z.object({ data: z.array(z.object({ id: z.string(), max_model_len: count.optional() })).max(2000) });

/** vLLM: `/v1/models` `data[].max_model_len`; it refuses a prompt plus `max_tokens` over it. */
export async function probeVllm(root: string, model: string, fetch: FetchLike, timeoutMs: number): Promise<ServerWindow | undefined> {
  const list = await getJson(fetch, `${root}/v1/models`, VllmModels, timeoutMs);
  const len = list?.data.find((m) => m.id === model)?.max_model_len ?? (list?.data.length === 1 ? list.data[0].max_model_len : undefined);
  return len ? { kind: 'vllm', contextWindow: len, warnings: [], loaded: true, truncates: false } : undefined;
}
