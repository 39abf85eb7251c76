/**
 * Pattern worker entry point (bundled as dist/pattern-worker.js): runs one `PatternJob` at a time
 * and replies `{ ok, value }` or `{ ok: false, message }`. It may be terminated mid-job at any time.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../common/errors';
import { runJobHere, type PatternJob } from './pattern-jobs';

const port = parentPort;
if (port) {
  port.on('message', (job: PatternJob) => {
    runJobHere(job).then(
      (value) => port.postMessage({ ok: true, value }),
      (err: unknown) => port.postMessage({ ok: false, message: errorMessage(err) }),
    );
  });
}
