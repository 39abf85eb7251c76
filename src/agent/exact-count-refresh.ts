/**
 * Moves the meter the moment the tokenizer's exact counts arrive. Until then the newest messages are
 * shown and gated as safe estimates (upper bounds from their composition); without this, nothing
 * re-rendered the meter until the next message, so it kept showing the estimate. Counts that arrive
 * together (one worker reply, one batch of messages) cause one update. Pure (no vscode); never throws.
 */
import { toDisposable, type IDisposable } from '../common/disposable';
import type { Event } from '../common/emitter';
import type { MessageCount } from '../context/message-tokens';
import type { ContextUsage } from './events';

/**
 * Calls `measure` once after each burst of `onDidCount` events (on the next macrotask) and passes its
 * usage to `publish`. `measure` returning undefined (nothing to show) publishes nothing. Dispose to stop.
 */
export function refreshOnExactCounts(
  onDidCount: Event<MessageCount>,
  measure: () => ContextUsage | undefined,
  publish: (usage: ContextUsage) => void,
): IDisposable {
  let scheduled: ReturnType<typeof setImmediate> | undefined;
  const run = () => {
    scheduled = undefined;
    try {
      const usage = measure();
      if (usage) publish(usage);
    } catch {
      // A failed re-render must not break counting; the next message updates the meter anyway.
    }
  };
  const sub = onDidCount(() => {
    scheduled ??= setImmediate(run);
  });
  return toDisposable(() => {
    sub.dispose();
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
  });
}
