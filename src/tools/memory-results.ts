/** An in-memory `ResultPort` for tests, benches and sessions without storage. */
import { newId } from '../common/ids';
import type { ResultPort } from './ports';
import { bufferSource, pageSource } from './result-port';

export interface MemoryResultPort extends ResultPort {
  /** Number of stored results. */
  readonly size: number;
  /** The full stored text, for tests. */
  get(refId: string): string | undefined;
}

export function createMemoryResultPort(): MemoryResultPort {
  const blobs = new Map<string, { toolName: string; content: Buffer }>();
  return {
    get size() {
      return blobs.size;
    },
    get(refId) {
      return blobs.get(refId)?.content.toString('utf8');
    },
    put({ toolName, content }) {
      const refId = newId('res');
      blobs.set(refId, { toolName, content: Buffer.from(content, 'utf8') });
      return Promise.resolve(refId);
    },
    page(refId, options, signal) {
      const blob = blobs.get(refId);
      return blob ? pageSource(bufferSource(blob.content, blob.toolName), options, { signal }) : Promise.resolve(undefined);
    },
  };
}
