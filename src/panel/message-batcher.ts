/**
 * Batches panel messages so a streaming answer costs at most ~30 posts a second: `chat/ops` are merged
 * (consecutive text deltas of one item become one), only the latest `context/usage` is kept, and
 * everything else keeps its order. Pure: the timer and clock are injected. Never throws.
 */
import type { HostToWebview } from '../protocol/messages';
import type { ChatOp } from '../protocol/view-models';

/** 33 ms: at most 30 flushes a second. */
export const FLUSH_INTERVAL_MS = 33;

export interface BatcherClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: BatcherClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class MessageBatcher {
  private queue: HostToWebview[] = [];
  private timer: unknown;
  private lastFlush = -Infinity;

  /** @param post receives each flushed message in order; errors it throws are swallowed. */
  constructor(
    private readonly post: (message: HostToWebview) => void,
    private readonly clock: BatcherClock = realClock,
    private readonly intervalMs = FLUSH_INTERVAL_MS,
  ) {}

  get pending(): number {
    return this.queue.length;
  }

  enqueue(message: HostToWebview): void {
    this.merge(message);
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastFlush + this.intervalMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Posts everything queued now (e.g. before a snapshot, so nothing arrives after it out of order). */
  flush(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    const out = this.queue;
    this.queue = [];
    if (out.length) this.lastFlush = this.clock.now();
    for (const m of out) {
      try {
        this.post(m);
      } catch {
        // the sink logs its own failures
      }
    }
  }

  /** Drops everything queued (the transcript was replaced; a snapshot follows). */
  discard(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
  }

  dispose(): void {
    this.discard();
  }

  private merge(m: HostToWebview): void {
    if (m.type === 'context/usage') {
      this.queue = this.queue.filter((q) => q.type !== 'context/usage');
      this.queue.push(m);
      return;
    }
    const last = this.queue[this.queue.length - 1];
    if (m.type === 'chat/ops' && last?.type === 'chat/ops') {
      const ops = [...last.ops];
      for (const op of m.ops) pushOp(ops, op);
      this.queue[this.queue.length - 1] = { type: 'chat/ops', ops };
      return;
    }
    this.queue.push(m);
  }
}

function pushOp(ops: ChatOp[], op: ChatOp): void {
  const prev = ops[ops.length - 1];
  if (op.op === 'delta' && prev?.op === 'delta' && prev.id === op.id && prev.field === op.field) {
    ops[ops.length - 1] = { ...prev, text: prev.text + op.text };
    return;
  }
  ops.push(op);
}
