/**
 * Runs `PatternJob`s (model-supplied globs and regexes) in a worker thread, so the extension host's
 * thread never evaluates a pattern. Two bounds hold whatever the pattern or the workspace:
 * - One wall-clock budget per tool call (`PatternBudget`), shared by every job the call runs (a grep
 *   over a stored result runs one job per chunk): nothing a job reports extends it. When it runs out
 *   the worker is terminated (a backtracking regex cannot be interrupted any other way) and the call
 *   rejects with a message the model can act on.
 * - One worker at a time (`PatternLane`): parallel tool calls queue for it instead of each taking a
 *   thread of a 2-core machine. The idle worker is kept for the next job and never keeps the process
 *   alive.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { HeadroomError } from '../common/errors';
import type { PatternJob, PatternJobResult } from './pattern-jobs';

/** Budget of one call that greps a stored result (all its chunks together). */
export const PATTERN_TIMEOUT_MS = 5_000;
/** Budget of one listing or search without ripgrep: the walk of the workspace and the pattern together. */
export const WALK_TIMEOUT_MS = 10_000;
/** Time a fresh worker gets to load its script before the budget starts (a cold start is not the pattern's fault). */
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

/**
 * The wall-clock time one tool call may spend evaluating its pattern, over all the jobs it runs. The
 * clock starts when the first job reaches a worker (not while the call waits in the lane) and never
 * stops or resets after that.
 */
export class PatternBudget {
  private startedAt: number | undefined;

  constructor(readonly ms: number) {}

  /** Called when a job of the call starts running; only the first call counts. */
  start(now = Date.now()): void {
    this.startedAt ??= now;
  }

  /** Milliseconds left (≤ 0 when spent). */
  remaining(now = Date.now()): number {
    return this.startedAt === undefined ? this.ms : this.ms - (now - this.startedAt);
  }
}

export interface RunPatternOptions {
  /** The call's budget; shared by every job of one call. */
  budget: PatternBudget;
  signal?: AbortSignal;
  /** Names the pattern in the timeout message, e.g. `the regular expression /(a+)+$/`. */
  what: string;
  worker?: PatternWorkerSpec;
  /** Default: the one lane of this extension host. */
  lane?: PatternLane;
}

type Reply<J extends PatternJob> = { started: true } | { ok: true; value: PatternJobResult<J> } | { ok: false; message: string };

/** At most one worker, running one job at a time; jobs queue in order. */
export class PatternLane {
  private idle: Worker | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private running = 0;
  /** Most workers alive at once since this lane was made (for tests and benches). */
  peakWorkers = 0;

  /** Runs `job` after the jobs queued before it. Rejects with a `HeadroomError`: 'tool_failed' on timeout, 'aborted' on abort. */
  run<J extends PatternJob>(job: J, options: RunPatternOptions): Promise<PatternJobResult<J>> {
    const { signal } = options;
    return new Promise<PatternJobResult<J>>((resolve, reject) => {
      // A call stopped while it waits for the lane leaves at once; its job never runs.
      const onAbort = () => reject(new HeadroomError('aborted', 'Stopped.'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const turn = this.tail.then(() => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) return undefined;
        return this.runNow(job, options).then(resolve, reject);
      });
      this.tail = turn.catch(() => undefined);
    });
  }

  private takeWorker(spec: PatternWorkerSpec): Worker {
    const reused = this.idle;
    this.idle = undefined;
    if (reused) {
      reused.ref();
      return reused;
    }
    return new Worker(spec.path, { execArgv: spec.execArgv });
  }

  private keep(worker: Worker): void {
    worker.removeAllListeners('message');
    worker.removeAllListeners('error');
    worker.removeAllListeners('exit');
    worker.unref();
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.idle === worker) this.idle = undefined;
    });
    this.idle = worker;
  }

  private runNow<J extends PatternJob>(job: J, options: RunPatternOptions): Promise<PatternJobResult<J>> {
    const { budget, signal } = options;
    if (signal?.aborted) return Promise.reject(new HeadroomError('aborted', 'Stopped.'));
    if (budget.remaining() <= 0) return Promise.reject(overBudget(options));
    const worker = this.takeWorker(options.worker ?? defaultPatternWorker());
    this.running++;
    this.peakWorkers = Math.max(this.peakWorkers, this.running);
    return new Promise<PatternJobResult<J>>((resolve, reject) => {
      let done = false;
      const finish = (reuse: boolean) => {
        done = true;
        this.running--;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (reuse) this.keep(worker);
        else void worker.terminate();
      };
      const fail = (err: HeadroomError) => {
        if (done) return;
        finish(false);
        reject(err);
      };
      const onAbort = () => fail(new HeadroomError('aborted', 'Stopped.'));
      // Until the worker acknowledges the job (its script loaded), only the start-up allowance runs.
      let timer = setTimeout(() => fail(overBudget(options)), Math.max(budget.remaining(), STARTUP_ALLOWANCE_MS));
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', (reply: Reply<J>) => {
        if (done) return;
        if ('started' in reply) {
          budget.start();
          clearTimeout(timer);
          timer = setTimeout(() => fail(overBudget(options)), Math.max(0, budget.remaining()));
          return;
        }
        finish(true);
        if (reply.ok) resolve(reply.value);
        else reject(new HeadroomError('tool_failed', reply.message));
      });
      worker.on('error', (err) => fail(new HeadroomError('tool_failed', `The pattern worker failed: ${err.message}`, { cause: err })));
      worker.on('exit', (code) => fail(new HeadroomError('tool_failed', `The pattern worker stopped unexpectedly (exit code ${code}).`)));
      worker.postMessage(job);
    });
  }
}

function overBudget(options: RunPatternOptions): HeadroomError {
  const seconds = Math.round(options.budget.ms / 100) / 10;
  return new HeadroomError(
    'tool_failed',
    `${options.what} took longer than ${seconds} s and was stopped. It is probably too complex to evaluate ` +
      '(nested or repeated quantifiers such as (a+)+ or many wildcards in one glob segment backtrack exponentially); ' +
      'use a simpler pattern or a narrower path.',
  );
}

const hostLane = new PatternLane();

/** Runs `job` in the lane of `options` (default: the extension host's one lane). */
export function runPatternJob<J extends PatternJob>(job: J, options: RunPatternOptions): Promise<PatternJobResult<J>> {
  return (options.lane ?? hostLane).run(job, options);
}
