import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { readFile } from 'node:fs/promises';
import { HeadroomError, errorMessage } from '../common/errors';

const loaded = new Map<string, Promise<SqlJsStatic>>();

/**
 * Loads sql.js once per process per wasm path (the promise is cached, so concurrent callers share
 * one instantiation). Rejects with a `storage` HeadroomError when the wasm cannot be read; a failed
 * load is not cached, so a later call retries.
 */
export function loadSqlJs(wasmPath: string): Promise<SqlJsStatic> {
  let p = loaded.get(wasmPath);
  if (!p) {
    p = (async () => {
      let wasmBinary: Uint8Array;
      try {
        wasmBinary = await readFile(wasmPath);
      } catch (err) {
        throw new HeadroomError('storage', `Cannot read the SQLite engine at ${wasmPath}: ${errorMessage(err)}`, { cause: err });
      }
      const buf = wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer;
      return initSqlJs({ wasmBinary: buf });
    })();
    loaded.set(wasmPath, p);
    p.catch(() => loaded.delete(wasmPath));
  }
  return p;
}
