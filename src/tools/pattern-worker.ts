/**
 * Pattern worker entry point (bundled as dist/pattern-worker.js): runs one `PatternJob` at a time
 * and replies `{ ok, value }` or `{ ok: false, message }`; during a walk it also posts `{ progress: true }`
 * (at most every `PROGRESS_EVERY_MS`). It may be terminated mid-job at any time.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../common/errors';
import { runJobHere, type PatternJob } from './pattern-jobs';

const PROGRESS_EVERY_MS = 200;

const port = parentPort;
if (port) {
  port.on('message', (job: PatternJob) => {
    let last = Date.now();
    const progress = () => {
      const now = Date.now();
      if (now - last < PROGRESS_EVERY_MS) return;
      last = now;
      port.postMessage({ progress: true });
    };
    port.postMessage({ progress: true }); // the job arrived: the client's bound starts now
    runJobHere(job, progress).then(
      (value) => port.postMessage({ ok: true, value }),
      (err: unknown) => port.postMessage({ ok: false, message: errorMessage(err) }),
    );
  });
}
