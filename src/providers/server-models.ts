/**
 * The models an OpenAI-compatible server offers, for the model picker: `GET /v1/models`, which Ollama,
 * LM Studio, llama.cpp and vLLM all serve. Pure apart from the injected `fetch`; never throws.
 */
import { z } from 'zod';
import { getJson, serverRoot, type FetchLike } from './server-window';

const ModelList = z.object({ data: z.array(z.object({ id: z.string().min(1).max(300) })).max(2_000) });

/** The server's model ids, in its order, without duplicates; [] when it does not answer in `timeoutMs`. */
export async function listServerModels(baseUrl: string, fetch: FetchLike, timeoutMs = 1_500): Promise<string[]> {
  const list = await getJson(fetch, `${serverRoot(baseUrl)}/v1/models`, ModelList, timeoutMs);
  return [...new Set((list?.data ?? []).map((m) => m.id))];
}
