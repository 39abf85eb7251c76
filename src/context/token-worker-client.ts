/**
 * The extension host's side of the token worker: spawns it lazily, batches texts to it and falls back
 * to byte estimates whenever it is not (or no longer) available. Imports no encoder, so loading this
 * module costs nothing on the activation path.
 */
import { Worker } from 'node:worker_threads';
import { Disposable } from '../common/disposable';
import { Emitter, type Event } from '../common/emitter';
import type { TextCount } from './message-tokens';
import { estimateText } from './message-tokens';
import type { TokenizerFamily } from './models';
import type { EncodingName } from './encoder';
import { workerReplySchema } from './token-protocol';

/** Something that counts texts for a family. Implemented by the worker client and by in-process counters (tests, benches). */
export interface TextCounter {
  /** Resolves with one count per text; never rejects (falls back to safe estimates, `source: 'bytes'`). */
  countTexts(family: TokenizerFamily, texts: readonly string[]): Promise<TextCount[]>;
  /** True once real tokenizer counts are available. */
  readonly isReady: boolean;
}

/** Options of the worker client. `workerPath` is dist/token-worker.js in the extension, the .ts source in tests. */
export interface TokenWorkerOptions {
  workerPath: string;
  /** e.g. `['--import', 'tsx']` to run the TypeScript source. */
  execArgv?: string[];
  /** Called with a message when the worker fails; the client keeps working on estimates. */
  onError?: (message: string) => void;
}

interface Pending {
  texts: readonly string[];
  family: TokenizerFamily;
  resolve: (counts: TextCount[]) => void;
}

function estimates(p: Pending): TextCount[] {
  return p.texts.map((t) => estimateText(t, p.family));
}

export function encodingFor(family: TokenizerFamily): EncodingName {
  return family === 'cl100k' ? 'cl100k_base' : 'o200k_base';
}

/** Worker-backed text counter. `start()` is optional: the first `countTexts` starts the worker. */
export class TokenWorkerClient extends Disposable implements TextCounter {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly readyEncodings = new Set<EncodingName>();
  private readyWaiters: Array<(ready: boolean) => void> = [];
  private _loadMs: number | undefined;

  private readonly _onDidBecomeReady = this._register(new Emitter<{ encoding: EncodingName; loadMs: number }>());
  /** Fires when the worker has loaded an encoding (the meter can switch from estimates to counts). */
  readonly onDidBecomeReady: Event<{ encoding: EncodingName; loadMs: number }> = this._onDidBecomeReady.event;

  constructor(private readonly options: TokenWorkerOptions) {
    super();
  }

  get isReady(): boolean {
    return this.readyEncodings.size > 0 && !this.failed;
  }

  /** Time the worker spent loading its first encoding, once known. */
  get loadMs(): number | undefined {
    return this._loadMs;
  }

  /** Spawns the worker (it starts loading o200k ranks at once). Idempotent; never throws. */
  start(): void {
    if (this.worker || this.failed || this.isDisposed) return;
    try {
      const worker = new Worker(this.options.workerPath, { execArgv: this.options.execArgv });
      worker.unref();
      worker.on('message', (raw: unknown) => this.onReply(raw));
      worker.on('error', (err) => this.fail(`token worker error: ${err.message}`));
      worker.on('exit', (code) => {
        if (!this.isDisposed) this.fail(`token worker exited with code ${code}`);
      });
      this.worker = worker;
    } catch (err) {
      this.fail(`token worker could not start: ${String(err)}`);
    }
  }

  /** Resolves true once an encoding is loaded, false if the worker failed or was disposed. */
  whenReady(): Promise<boolean> {
    if (this.isReady) return Promise.resolve(true);
    if (this.failed || this.isDisposed) return Promise.resolve(false);
    this.start();
    this.worker?.ref(); // keep the process alive while someone waits
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  countTexts(family: TokenizerFamily, texts: readonly string[]): Promise<TextCount[]> {
    if (texts.length === 0) return Promise.resolve([]);
    this.start();
    const worker = this.worker;
    if (!worker || this.failed || this.isDisposed) return Promise.resolve(texts.map((t) => estimateText(t, family)));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { texts, family, resolve });
      worker.ref(); // keep the process alive while an answer is owed
      worker.postMessage({ type: 'count', id, family, texts });
    });
  }

  override dispose(): void {
    if (this.isDisposed) return;
    super.dispose();
    this.settleAll();
    this.resolveWaiters(false);
    void this.worker?.terminate();
    this.worker = undefined;
  }

  private onReply(raw: unknown): void {
    const parsed = workerReplySchema.safeParse(raw);
    if (!parsed.success) {
      this.options.onError?.(`token worker sent an invalid reply: ${parsed.error.message}`);
      return;
    }
    const reply = parsed.data;
    if (reply.type === 'ready') {
      this.readyEncodings.add(reply.encoding);
      this._loadMs ??= reply.loadMs;
      this._onDidBecomeReady.fire({ encoding: reply.encoding, loadMs: reply.loadMs });
      this.resolveWaiters(true);
      return;
    }
    if (reply.type === 'error') {
      this.options.onError?.(reply.message);
      if (reply.id !== undefined) this.settle(reply.id);
      else if (!this.isReady) this.fail(reply.message);
      return;
    }
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (reply.counts.length !== p.texts.length || reply.counts.some((c) => c.family !== p.family)) p.resolve(estimates(p));
    else p.resolve(reply.counts);
    this.unrefIfIdle();
  }

  private fail(message: string): void {
    if (this.failed) return;
    this.failed = true;
    this.options.onError?.(message);
    this.settleAll();
    this.resolveWaiters(false);
    void this.worker?.terminate();
    this.worker = undefined;
  }

  /** Answers one request with estimates. */
  private settle(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.resolve(estimates(p));
    this.unrefIfIdle();
  }

  private settleAll(): void {
    for (const id of [...this.pending.keys()]) this.settle(id);
  }

  private unrefIfIdle(): void {
    if (this.pending.size === 0 && this.readyWaiters.length === 0) this.worker?.unref();
  }

  private resolveWaiters(ready: boolean): void {
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w(ready);
    this.unrefIfIdle();
  }
}
