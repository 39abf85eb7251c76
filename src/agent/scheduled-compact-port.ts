import type { CompactPort } from '../tools/ports';
import type { DefaultContextGate } from './context-gate';

/**
 * The `CompactPort` for the `compact_context` tool over the default gate: the compaction is scheduled
 * and runs before the model's next request (compacting in the middle of a tool batch could separate
 * the running call from its result). The loop reports it with a `compaction` event.
 */
export function scheduledCompactPort(gate: DefaultContextGate): CompactPort {
  return {
    compact({ focus }) {
      gate.requestCompaction(focus);
      return Promise.resolve({
        beforeTokens: gate.lastUsed,
        afterTokens: gate.lastUsed,
        strategies: [],
        note: 'The compaction is scheduled: it runs before your next request, and the next context status shows what it freed.',
      });
    },
  };
}
