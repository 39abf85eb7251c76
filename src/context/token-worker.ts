/**
 * Token worker entry point (bundled as dist/token-worker.js). Loads the o200k ranks at start-up, off
 * the extension host's thread, then answers `count` requests with every token counted
 * (`worker-count.ts`): a long text costs the worker time, never the figure its exactness. Never exits on
 * a bad request: it replies with an `error` instead.
 */
import { parentPort } from 'node:worker_threads';
import { loadEncoding, type EncodingName } from './encoder';
import { countRequestSchema, type WorkerReply } from './token-protocol';
import { encodingFor } from './token-worker-client';
import { countInFamily } from './worker-count';

const port = parentPort;
if (port) {
  const post = (reply: WorkerReply) => port.postMessage(reply);
  const preload = (name: EncodingName) =>
    loadEncoding(name).then(
      (loaded) => post({ type: 'ready', encoding: name, loadMs: loaded.loadMs }),
      (err: unknown) => post({ type: 'error', message: `loading ${name} failed: ${String(err)}` }),
    );
  void preload('o200k_base');

  // Answers never reject (every failure becomes an `error` reply), so nothing is lost by not awaiting.
  const answer = async (raw: unknown): Promise<void> => {
    const parsed = countRequestSchema.safeParse(raw);
    if (!parsed.success) {
      const id =
        typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'number'
          ? (raw as { id: number }).id
          : undefined;
      post({ type: 'error', id, message: `bad request: ${parsed.error.message}` });
      return;
    }
    const req = parsed.data;
    try {
      const { counter } = await loadEncoding(encodingFor(req.family));
      const start = performance.now();
      const counts = req.texts.map((t) => countInFamily(t, req.family, counter));
      post({ type: 'counts', id: req.id, counts, ms: performance.now() - start });
    } catch (err) {
      post({ type: 'error', id: req.id, message: String(err) });
    }
  };
  port.on('message', (raw: unknown) => void answer(raw));
}
