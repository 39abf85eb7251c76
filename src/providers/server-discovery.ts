import { z } from 'zod';

/**
 * Local servers tell Headroom their real window. Given an OpenAI-compatible base URL and a `fetch`,
 * detects the server kind from its own endpoints and reads the context length it will really use
 * for a model (often far below the model's maximum):
 *   Ollama     GET /api/ps `models[].context_length` (the loaded model), else POST /api/show
 *              `parameters` num_ctx; the model's maximum from `model_info["<arch>.context_length"]`
 *   LM Studio  GET /api/v0/models `data[].loaded_context_length` (`max_context_length` when not loaded)
 *   llama.cpp  GET /props `default_generation_settings.n_ctx` (per slot) or `n_ctx`
 *   vLLM       GET /v1/models `data[].max_model_len`
 * Pure apart from the injected `fetch`; never throws.
 */

export type ServerKind = 'ollama' | 'lmstudio' | 'llamacpp' | 'vllm';

/** What a local server reported about a model's window. */
export interface ServerWindow {
  kind: ServerKind;
  /** The context length the server will really use for this model, in tokens. */
  contextWindow: number;
  /** The model's own maximum, when the server says it (for the warning that the window is smaller). */
  modelMax?: number;
  /** Things a person should know, e.g. "not loaded: Ollama's default assumed". */
  warnings: string[];
}

/** The part of `fetch` discovery needs; the global `fetch` fits. */
export type FetchLike = (
  url: string,
  init?: { method?: string; body?: string; headers?: Record<string, string>; signal?: AbortSignal },
) => Promise<{ ok: boolean; json(): Promise<unknown> }>;

/** Ollama's context length when neither the loaded model nor its Modelfile says (its default below 24 GiB VRAM). */
export const OLLAMA_DEFAULT_CONTEXT = 4096;

const count = z.number().int().positive();
const OllamaPs = z.object({
  models: z.array(z.object({ name: z.string().optional(), model: z.string().optional(), context_length: count.optional() })),
});
const OllamaShow = z.object({ model_info: z.record(z.string(), z.unknown()).optional(), parameters: z.string().optional() });
const LmStudioModels = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      state: z.string().optional(),
      max_context_length: count.optional(),
      loaded_context_length: count.optional(),
    }),
  ),
});
const LlamaCppProps = z.object({ default_generation_settings: z.object({ n_ctx: count.optional() }).optional(), n_ctx: count.optional() });
const VllmModels = z.object({ data: z.array(z.object({ id: z.string(), max_model_len: count.optional() })) });

/** The server root: the base URL without a trailing `/v1` (and slashes). */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** GETs (or POSTs `body` to) `url` and parses the JSON with `schema`; undefined on any failure. Never throws. */
export async function getJson<T>(
  fetch: FetchLike,
  url: string,
  schema: z.ZodType<T>,
  timeoutMs: number,
  body?: unknown,
): Promise<T | undefined> {
  try {
    const init =
      body === undefined
        ? { method: 'GET' }
        : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    const parsed = schema.safeParse(await res.json());
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // not this kind of server, or not reachable
  }
}

/** Ollama names a model `name:tag`; a request for `name` means `name:latest`. */
const ollamaName = (m: string) => (m.includes(':') ? m : `${m}:latest`);

async function ollama(root: string, model: string, fetch: FetchLike, timeoutMs: number): Promise<ServerWindow | undefined> {
  const ps = await getJson(fetch, `${root}/api/ps`, OllamaPs, timeoutMs);
  if (!ps) return undefined;
  const show = await getJson(fetch, `${root}/api/show`, OllamaShow, timeoutMs, { model });
  const maxEntry = Object.entries(show?.model_info ?? {}).find(([k, v]) => k.endsWith('.context_length') && typeof v === 'number');
  const modelMax = maxEntry ? (maxEntry[1] as number) : undefined;
  const loaded = ps.models.find((m) =>
    [m.name, m.model].some((n) => n !== undefined && ollamaName(n) === ollamaName(model)),
  )?.context_length;
  const numCtx = Number(/^\s*num_ctx\s+(\d+)/m.exec(show?.parameters ?? '')?.[1]) || undefined;
  const warnings: string[] = [];
  let contextWindow = loaded ?? numCtx;
  if (contextWindow === undefined) {
    contextWindow = OLLAMA_DEFAULT_CONTEXT;
    warnings.push(
      `Ollama has not loaded ${model} yet and its Modelfile sets no num_ctx: assuming Ollama's default of ${OLLAMA_DEFAULT_CONTEXT} tokens until it is loaded.`,
    );
  }
  if (modelMax !== undefined && contextWindow < modelMax) {
    warnings.push(
      `Ollama serves ${model} with a ${contextWindow}-token context (the model supports ${modelMax}); Ollama silently drops the start of longer prompts, so Headroom budgets to ${contextWindow}. Raise it with OLLAMA_CONTEXT_LENGTH or the model's num_ctx.`,
    );
  }
  return { kind: 'ollama', contextWindow, modelMax, warnings };
}

async function lmstudio(root: string, model: string, fetch: FetchLike, timeoutMs: number): Promise<ServerWindow | undefined> {
  const list = await getJson(fetch, `${root}/api/v0/models`, LmStudioModels, timeoutMs);
  if (!list) return undefined;
  const rows = list.data.filter((m) => m.id === model);
  const row = rows.find((m) => m.state === 'loaded') ?? rows[0];
  if (!row) return { kind: 'lmstudio', contextWindow: 0, warnings: [`LM Studio does not list ${model}.`] };
  if (row.loaded_context_length)
    return { kind: 'lmstudio', contextWindow: row.loaded_context_length, modelMax: row.max_context_length, warnings: [] };
  if (!row.max_context_length) return undefined;
  return {
    kind: 'lmstudio',
    contextWindow: row.max_context_length,
    modelMax: row.max_context_length,
    warnings: [`LM Studio has not loaded ${model}; its loaded context length may be smaller than the ${row.max_context_length} assumed.`],
  };
}

async function llamacpp(root: string, fetch: FetchLike, timeoutMs: number): Promise<ServerWindow | undefined> {
  const props = await getJson(fetch, `${root}/props`, LlamaCppProps, timeoutMs);
  const nCtx = props?.default_generation_settings?.n_ctx ?? props?.n_ctx;
  return nCtx ? { kind: 'llamacpp', contextWindow: nCtx, warnings: [] } : undefined;
}

async function vllm(root: string, model: string, fetch: FetchLike, timeoutMs: number): Promise<ServerWindow | undefined> {
  const list = await getJson(fetch, `${root}/v1/models`, VllmModels, timeoutMs);
  const len = list?.data.find((m) => m.id === model)?.max_model_len ?? (list?.data.length === 1 ? list.data[0].max_model_len : undefined);
  return len ? { kind: 'vllm', contextWindow: len, warnings: [] } : undefined;
}

/**
 * Asks the server at `baseUrl` which context length it will use for `model`. Probes Ollama, LM
 * Studio, llama.cpp and vLLM in that order (each by an endpoint only that server has, vLLM's field
 * last because others serve `/v1/models` too). Undefined when no probe recognises the server or it
 * reports no usable length. Never throws; each probe gives up after `timeoutMs`.
 */
export async function discoverServerWindow(
  baseUrl: string,
  model: string,
  fetch: FetchLike,
  timeoutMs = 3000,
): Promise<ServerWindow | undefined> {
  const root = serverRoot(baseUrl);
  const found =
    (await ollama(root, model, fetch, timeoutMs)) ??
    (await lmstudio(root, model, fetch, timeoutMs)) ??
    (await llamacpp(root, fetch, timeoutMs)) ??
    (await vllm(root, model, fetch, timeoutMs));
  return found && found.contextWindow > 0 ? found : undefined;
}

/**
 * Remembers what each server said, per base URL and model, so a turn does not wait on probes:
 * a found window is asked again after `refreshMs` (Ollama changes it when it reloads a model), a
 * server that is none of the four is not asked again. Never throws.
 */
export class ServerWindowCache {
  private readonly entries = new Map<string, { at: number; window: ServerWindow | undefined }>();

  constructor(
    private readonly fetch: FetchLike,
    private readonly refreshMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The server's window for `model`, asking it when nothing fresh is known. */
  async get(baseUrl: string, model: string): Promise<ServerWindow | undefined> {
    const key = `${serverRoot(baseUrl)}\n${model}`;
    const hit = this.entries.get(key);
    if (hit && (!hit.window || this.now() - hit.at < this.refreshMs)) return hit.window;
    const window = await discoverServerWindow(baseUrl, model, this.fetch);
    this.entries.set(key, { at: this.now(), window });
    return window;
  }

  /** The last known window for `model`, without asking (for synchronous readers such as the meter). */
  peek(baseUrl: string, model: string): ServerWindow | undefined {
    return this.entries.get(`${serverRoot(baseUrl)}\n${model}`)?.window;
  }
}
