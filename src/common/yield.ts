/**
 * Lets the host breathe during long work: resolves on a later turn of the event loop (after pending I/O
 * and timers), unlike `await` on a resolved promise, which continues in the same turn. A long
 * computation split by these stays responsive (compacting a 1M-token history).
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A check for the inside of a long loop: `await slice()` yields to the event loop once `budgetMs` of work
 * ran since the last yield, and otherwise continues at once (so short loops pay nothing).
 */
export function timeSlicer(budgetMs = 8, now: () => number = () => performance.now()): () => Promise<void> {
  let since = now();
  return async () => {
    if (now() - since < budgetMs) return;
    await yieldToEventLoop();
    since = now();
  };
}
