/**
 * Runs `PatternJob`s (model-supplied globs and regexes) in worker threads with a time bound: a job
 * may run as long as it keeps reporting progress (a walk reports each file), but no single step may
 * take longer than the bound. A job that stalls past its bound, or whose signal aborts, has its worker terminated (a backtracking regex
 * cannot be interrupted any other way) and rejects with a message the model can act on; the
 * extension host's thread never evaluates the pattern. Idle workers are kept for the next job and
 * never keep the process alive.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { HeadroomError } from '../common/errors';
import type { PatternJob, PatternJobResult } from './pattern-jobs';

/** Longest a job may go without progress (a grep page is one step; a walk steps at each file). */
export const PATTERN_TIMEOUT_MS = 5_000;
const MAX_IDLE_WORKERS = 2;
/** Time a fresh worker gets to load its script before the job's own bound starts. */
const STARTUP_ALLOWANCE_MS = 30_000;

/** Where the worker script is: dist/pattern-worker.js next to the bundle, or the .ts source under tsx. */
export interface PatternWorkerSpec {
  path: string;
  execArgv?: string[];
}

export function defaultPatternWorker(dir: string = __dirname): PatternWorkerSpec {
  const js = path.join(dir, 'pattern-worker.js');
  if (existsSync(js)) return { path: js };
  return { path: path.join(dir, 'pattern-worker.ts'), execArgv: ['--require', 'tsx/cjs'] };
}

export interface RunPatternOptions {
  /** Longest time without a reply or a progress report. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Names the pattern in the timeout message, e.g. `the regular expression /(a+)+$/`. */
  what: string;
  worker?: PatternWorkerSpec;
}

const idle: Worker[] = [];

function takeWorker(spec: PatternWorkerSpec): Worker {
  const reused = idle.pop();
  if (reused) {
    reused.ref();
    return reused;
  }
  return new Worker(spec.path, { execArgv: spec.execArgv });
}

function release(worker: Worker): void {
  worker.removeAllListeners('message');
  worker.removeAllListeners('error');
  worker.removeAllListeners('exit');
  if (idle.length >= MAX_IDLE_WORKERS) {
    void worker.terminate();
    return;
  }
  worker.unref();
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
  });
  idle.push(worker);
}

/** Runs `job` in a worker. Rejects with a `HeadroomError`: 'tool_failed' on timeout, 'aborted' on abort. */
export function runPatternJob<J extends PatternJob>(job: J, options: RunPatternOptions): Promise<PatternJobResult<J>> {
  if (options.signal?.aborted) return Promise.reject(new HeadroomError('aborted', 'Stopped.'));
  const worker = takeWorker(options.worker ?? defaultPatternWorker());
  return new Promise<PatternJobResult<J>>((resolve, reject) => {
    let done = false;
    const onStall = () => {
      if (done) return;
      finish(false);
      const seconds = Math.round(options.timeoutMs / 100) / 10;
      reject(
        new HeadroomError(
          'tool_failed',
          `${options.what} took longer than ${seconds} s and was stopped. It is probably too complex to evaluate ` +
            '(nested or repeated quantifiers such as (a+)+ or many wildcards in one glob segment backtrack exponentially); ' +
            'use a simpler pattern or a narrower path.',
        ),
      );
    };
    // The worker acknowledges the job with a progress report once its script is loaded; a cold start
    // on a loaded machine is not the pattern's fault, so the first bound is wider.
    let timer = setTimeout(onStall, Math.max(options.timeoutMs, STARTUP_ALLOWANCE_MS));
    const finish = (reuse: boolean) => {
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (reuse) release(worker);
      else void worker.terminate();
    };
    const onAbort = () => {
      if (done) return;
      finish(false);
      reject(new HeadroomError('aborted', 'Stopped.'));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (reply: { progress: true } | { ok: true; value: PatternJobResult<J> } | { ok: false; message: string }) => {
      if (done) return;
      if ('progress' in reply) {
        clearTimeout(timer);
        timer = setTimeout(onStall, options.timeoutMs);
        return;
      }
      finish(true);
      if (reply.ok) resolve(reply.value);
      else reject(new HeadroomError('tool_failed', reply.message));
    });
    worker.on('error', (err) => {
      if (done) return;
      finish(false);
      reject(new HeadroomError('tool_failed', `The pattern worker failed: ${err.message}`, { cause: err }));
    });
    worker.on('exit', (code) => {
      if (done) return;
      finish(false);
      reject(new HeadroomError('tool_failed', `The pattern worker stopped unexpectedly (exit code ${code}).`));
    });
    worker.postMessage(job);
  });
}
