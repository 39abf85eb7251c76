/**
 * Loads a js-tiktoken encoder with only the ranks it needs. Loading o200k ranks costs ~800 ms of
 * synchronous work, so this module is imported only by the token worker (and by tests/benches), never
 * on the extension's activation path.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import { createBoundedCounter, type BoundedCounter } from './bounded-counter';

/** The BPE encodings Headroom ships. Claude models are estimated with o200k (see `tokenizer-family.ts`). */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** A loaded encoder plus the bounded counter built on it. */
export interface LoadedEncoding {
  name: EncodingName;
  encoder: Tiktoken;
  counter: BoundedCounter;
  /** Wall time spent loading ranks and building the encoder. */
  loadMs: number;
}

const cache = new Map<EncodingName, Promise<LoadedEncoding>>();

/** Loads (once per process) the named encoding. Rejects only if the ranks module cannot be loaded. */
export function loadEncoding(name: EncodingName): Promise<LoadedEncoding> {
  let p = cache.get(name);
  if (!p) {
    p = (async () => {
      const start = performance.now();
      const mod = name === 'o200k_base' ? await import('js-tiktoken/ranks/o200k_base') : await import('js-tiktoken/ranks/cl100k_base');
      const ranks = mod.default;
      const encoder = new Tiktoken(ranks);
      const counter = createBoundedCounter(encoder, ranks.pat_str);
      return { name, encoder, counter, loadMs: performance.now() - start };
    })();
    cache.set(name, p);
    p.catch(() => cache.delete(name));
  }
  return p;
}
