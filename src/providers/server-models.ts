/**
 * The models an OpenAI-compatible server offers, for the model picker: `GET /v1/models`, which Ollama,
 * LM Studio, llama.cpp and vLLM all serve (https://platform.openai.com/docs/api-reference/models/list).
 * The server is untrusted: at most `MAX_MODELS_BODY_BYTES` of its answer are read, at most
 * `MAX_SERVER_MODELS` ids kept (a longer list is cut, not dropped), each id one line of bounded length.
 * Pure apart from the injected `fetch`; never throws.
 */
import { singleLine } from '../common/single-line';
import { serverRoot } from './server-discovery';
import type { ServerWindow } from './server-window';

/** Ids kept from one list (a picker of more is unusable; "Other model id…" takes any). */
export const MAX_SERVER_MODELS = 500;
/** Bytes of the answer read (500 ids with their metadata fit in a fraction of it). */
export const MAX_MODELS_BODY_BYTES = 1024 * 1024;
const MAX_ID_CHARS = 300;

/** What `listServerModels` needs of `fetch`: the status and the body as a stream. */
export type ModelsFetch = (
  url: string,
  init?: { signal?: AbortSignal; headers?: Record<string, string> },
) => Promise<{ ok: boolean; body: ReadableStream<Uint8Array> | null }>;

/** The first `max` bytes of `body` as text, and whether there was more. */
async function readCapped(body: ReadableStream<Uint8Array>, max: number): Promise<{ text: string; cut: boolean }> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(parts).toString('utf8'), cut: false };
    parts.push(value);
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return { text: Buffer.concat(parts).subarray(0, max).toString('utf8'), cut: true };
    }
  }
}

/** A model id as the picker may show it, or undefined when it is not one. */
function cleanId(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const id = singleLine(v.trim());
  return id && id.length <= MAX_ID_CHARS ? id : undefined;
}

/** The ids of a whole answer (`{data: [{id}]}`); undefined when it is not that shape. */
function idsOfJson(text: string): string[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const data = typeof json === 'object' && json !== null ? (json as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return undefined;
  const ids: string[] = [];
  for (const m of data) {
    const id = cleanId(typeof m === 'object' && m !== null ? (m as { id?: unknown }).id : undefined);
    if (id) ids.push(id);
    if (ids.length >= MAX_SERVER_MODELS * 2) break; // enough to fill the list after duplicates
  }
  return ids;
}

/**
 * The ids in the first part of an answer too long to read whole: each `"id": "…"` in order, leaving
 * out the permission entries older servers nest inside each model (`modelperm-…`).
 */
function idsOfPrefix(text: string): string[] {
  const ids: string[] = [];
  for (const m of text.matchAll(/"id"\s*:\s*"((?:[^"\\]|\\.){1,300})"/g)) {
    let raw: unknown;
    try {
      raw = JSON.parse(`"${m[1]}"`);
    } catch {
      continue;
    }
    const id = cleanId(raw);
    if (id && !id.startsWith('modelperm-')) ids.push(id);
    if (ids.length >= MAX_SERVER_MODELS * 2) break;
  }
  return ids;
}

/** The server's model ids, in its order, without duplicates, at most `MAX_SERVER_MODELS`; [] when it does not answer in `timeoutMs`. */
export async function listServerModels(baseUrl: string, fetch: ModelsFetch, timeoutMs = 1_500): Promise<string[]> {
  try {
    const res = await fetch(`${serverRoot(baseUrl)}/v1/models`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok || !res.body) return [];
    const { text, cut } = await readCapped(res.body, MAX_MODELS_BODY_BYTES);
    const ids = (cut ? undefined : idsOfJson(text)) ?? idsOfPrefix(text);
    return [...new Set(ids)].slice(0, MAX_SERVER_MODELS);
  } catch {
    return []; // not such a server, or not reachable
  }
}

/** Models of a server whose windows the picker asks about (Ollama answers one `/api/show` per model). */
export const PROBED_MODELS = 16;

/** A server's models in its order, with the window it reported for those it was asked about. */
export interface ServerModels {
  ids: string[];
  windows: Map<string, ServerWindow>;
}

/** The server's list, and the windows of its first `PROBED_MODELS` models asked in parallel (`windowOf` bounds each). */
export async function listWithWindows(
  baseUrl: string,
  fetch: ModelsFetch,
  windowOf: (model: string) => Promise<ServerWindow | undefined>,
): Promise<ServerModels> {
  const ids = await listServerModels(baseUrl, fetch);
  const found = await Promise.all(ids.slice(0, PROBED_MODELS).map(async (id) => [id, await windowOf(id)] as const));
  return { ids, windows: new Map(found.flatMap(([id, w]) => (w ? [[id, w] as const] : []))) };
}

/**
 * Whether a server's list names `model`: as listed, or by Ollama's rule that a name without a tag means
 * its `:latest` (https://github.com/ollama/ollama/blob/main/docs/api.md#model-names), which `/v1/models`
 * lists with the tag. An empty list says nothing (the caller decides what unknown means).
 */
export function listsModel(ids: readonly string[], model: string): boolean {
  const m = model.trim();
  if (!m) return false;
  const tagged = m.includes(':') ? m : `${m}:latest`;
  return ids.some((id) => id === m || id === tagged || (!id.includes(':') && `${id}:latest` === tagged));
}

/**
 * What setting up a server does with its list: keep a configured model the server has, take the one
 * model it serves, ask which of several (none preselected: a catalogue default is no one's choice), or
 * say the list is unknown (the server did not answer `/v1/models`).
 */
export type ServerModelSetup =
  { kind: 'keep'; model: string } | { kind: 'use'; model: string } | { kind: 'ask'; models: readonly string[] } | { kind: 'unknown' };

export function serverModelSetup(ids: readonly string[], current: string): ServerModelSetup {
  if (!ids.length) return { kind: 'unknown' };
  if (listsModel(ids, current)) return { kind: 'keep', model: current };
  return ids.length === 1 ? { kind: 'use', model: ids[0] } : { kind: 'ask', models: ids };
}

/** "qwen2.5-coder:7b, llama3.2:3b, … (12 in all)": a server's list in one line of bounded length. */
export function modelListWords(ids: readonly string[], shown = 6): string {
  const head = ids.slice(0, shown).join(', ');
  return ids.length > shown ? `${head}, … (${ids.length} in all)` : head;
}
