/**
 * Loads an exact counter over a js-tiktoken encoding's ranks. Parsing the o200k ranks costs ~1 s of
 * synchronous work, so this module is imported only by the token worker (and by tests/benches), never
 * on the extension's activation path.
 */
import { createExactCounter, type ExactCounter } from './exact-counter';

/** The BPE encodings Headroom ships. Claude models are bounded from the o200k count (`worker-count.ts`). */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** A loaded encoding's exact counter. */
export interface LoadedEncoding {
  name: EncodingName;
  counter: ExactCounter;
  /** Wall time spent loading and parsing the ranks. */
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
      const counter = createExactCounter(mod.default);
      return { name, counter, loadMs: performance.now() - start };
    })();
    cache.set(name, p);
    p.catch(() => cache.delete(name));
  }
  return p;
}
