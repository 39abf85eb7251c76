/**
 * Pattern worker entry point (bundled as dist/pattern-worker.js): runs one `PatternJob` at a time.
 * It acknowledges each job with `{ started: true }` (the call's budget starts then, not while the
 * script loads), then replies `{ ok, value }` or `{ ok: false, message }`. It may be terminated
 * mid-job at any time.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../common/errors';
import { runJobHere, type PatternJob } from './pattern-jobs';

const port = parentPort;
if (port) {
  port.on('message', (job: PatternJob) => {
    port.postMessage({ started: true });
    runJobHere(job).then(
      (value) => port.postMessage({ ok: true, value }),
      (err: unknown) => port.postMessage({ ok: false, message: errorMessage(err) }),
    );
  });
}
