/**
 * Local servers tell Headroom their real window. Given an OpenAI-compatible base URL and a `fetch`,
 * detects the server kind from its own endpoints and reads the context length it will really use
 * for a model (often far below the model's maximum); each probe and its sources are in
 * `server-probes.ts`:
 *   Ollama     /api/ps loaded context, else the Modelfile's num_ctx, else its version's default
 *   LM Studio  /api/v1/models loaded instance's context (else /api/v0/models); not loaded: small
 *   llama.cpp  /props (and /slots) one slot's n_ctx
 *   vLLM       /v1/models max_model_len
 * Pure apart from the injected `fetch`; never throws.
 */
import { probeLlamaCpp, probeLmStudio, probeOllama, probeVllm } from './server-probes';
import { serverRoot, type FetchLike, type ServerWindow } from './server-window';

export { getJson, serverRoot, type FetchLike, type ServerKind, type ServerWindow } from './server-window';
export { LMSTUDIO_UNLOADED_CONTEXT, OLLAMA_DEFAULT_CONTEXT, OLLAMA_OLD_DEFAULT_CONTEXT } from './server-probes';

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
    (await probeOllama(root, model, fetch, timeoutMs)) ??
    (await probeLmStudio(root, model, fetch, timeoutMs)) ??
    (await probeLlamaCpp(root, fetch, timeoutMs)) ??
    (await probeVllm(root, model, fetch, timeoutMs));
  return found && found.contextWindow > 0 ? found : undefined;
}

/**
 * Remembers what each server said, per base URL and model, so a turn does not wait on probes: a found
 * window is asked again after `refreshMs` (Ollama changes it when it reloads a model), an assumed one
 * (model not loaded yet) before every turn until the server tells, a forgotten one (`forget`: its
 * reports looked wrong) at once; a server that is none of the four is not asked again. Never throws.
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
    if (hit && (!hit.window || (hit.window.loaded && this.now() - hit.at < this.refreshMs))) return hit.window;
    const window = await discoverServerWindow(baseUrl, model, this.fetch);
    // A server that answered before and not now (restarting, busy) keeps its last answer.
    this.entries.set(key, { at: this.now(), window: window ?? hit?.window });
    return window ?? hit?.window;
  }

  /** The last known window for `model`, without asking (for synchronous readers such as the meter). */
  peek(baseUrl: string, model: string): ServerWindow | undefined {
    return this.entries.get(`${serverRoot(baseUrl)}\n${model}`)?.window;
  }

  /** Makes the next `get` ask the server again (its usage looked truncated: the window may have changed). */
  forget(baseUrl: string, model: string): void {
    const hit = this.entries.get(`${serverRoot(baseUrl)}\n${model}`);
    if (hit?.window) hit.at = -Infinity;
  }
}
