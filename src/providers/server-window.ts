/**
 * What a local server says about a model's window, and how Headroom asks it: the shape every probe
 * returns (`server-probes.ts`) and the guarded JSON request they share. Pure apart from the injected
 * `fetch`; never throws.
 */
import type { z } from 'zod';

export type ServerKind = 'ollama' | 'lmstudio' | 'llamacpp' | 'vllm';

/** What a local server reported about a model's window. */
export interface ServerWindow {
  kind: ServerKind;
  /** The context length Headroom budgets to for this model, in tokens. */
  contextWindow: number;
  /** The model's own maximum, when the server says it (for the warning that the window is smaller). */
  modelMax?: number;
  /** Things a person should know, e.g. "not loaded: a small window assumed". */
  warnings: string[];
  /**
   * False when `contextWindow` is an assumption because the model is not loaded yet (or the server
   * does not tell the loaded context): the server is asked again before every turn until it says.
   */
  loaded: boolean;
  /**
   * The server cuts a prompt over its window without a word instead of refusing it (LM Studio;
   * Ollama before 0.12.6), so a usage figure at or below the window may be a truncated one.
   */
  truncates: boolean;
  /** Ollama: requests go to its native API (see `ollama-chat.ts`). */
  ollama?: {
    version?: string;
    /** True when `contextWindow` is what Ollama will run with once asked for it (`num_ctx` is sent). */
    numCtxKnown: boolean;
    /** Its `prompt_eval_count` leaves out the cached prefix (Ollama 0.30.0). */
    uncachedUsage: boolean;
  };
}

/** The part of `fetch` discovery needs; the global `fetch` fits. */
export type FetchLike = (
  url: string,
  init?: { method?: string; body?: string; headers?: Record<string, string>; signal?: AbortSignal },
) => Promise<{ ok: boolean; json(): Promise<unknown> }>;

/** The server root: the base URL without a trailing `/v1` (and slashes). */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * GETs (or POSTs `body` to) `url` and parses the JSON with `schema`; undefined on any failure, after
 * `timeoutMs` or once `signal` aborts. Never throws.
 */
export async function getJson<T>(
  fetch: FetchLike,
  url: string,
  schema: z.ZodType<T>,
  timeoutMs: number,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T | undefined> {
  try {
    const init =
      body === undefined
        ? { method: 'GET' }
        : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    const timeout = AbortSignal.timeout(timeoutMs);
    const res = await fetch(url, { ...init, signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
    if (!res.ok) return undefined;
    const parsed = schema.safeParse(await res.json());
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // not this kind of server, or not reachable
  }
}
