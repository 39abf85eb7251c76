/**
 * Manual compaction (button, command, `/compact focus`) of the current session. Pure (no vscode).
 */
import type { CompactionReport } from '../agent';
import type { CompactInput } from '../agent/compact-hook';
import { HeadroomError } from '../common/errors';
import { compactionReport } from '../context/compaction';
import { restrictedModeRefusal } from '../protocol/restricted-mode';
import type { Message } from '../providers/types';
import { compactionChain, recordCompaction } from './compaction-wiring';
import type { SessionCore } from './session-core';

/**
 * One pass of the chain (clear old results → summary → drop oldest turns) aimed at the compaction
 * target (`context/compaction/target.ts`). Non-destructive: the transcript keeps everything, the
 * compacted view is saved as a snapshot, and it can be undone. A manual pass that reaches its target
 * also resumes automatic compaction paused by the loop breaker. The caller has opened the store.
 */
export async function compactNow(core: SessionCore, focus?: string): Promise<CompactionReport | undefined> {
  core.assertIdle('compacting');
  const refusal = restrictedModeRefusal('compact', core.env.trusted());
  if (refusal) throw new HeadroomError('invalid_request', refusal);
  if (!core.session?.messages.length) return undefined;
  await core.models.releaseKey();
  await core.models.discoverServerWindow();
  const limits = core.models.limits();
  const gate = core.gates.for(limits);
  const view = [...core.messages];
  const before = gate.measure(view);
  const tokensOf = (m: Message) => gate.tokensOf(m);
  const targetTokens = gate.compactionTarget(view, 'manual');
  const input: CompactInput = {
    messages: view,
    tokensOf,
    trigger: 'manual',
    focus,
    effectiveWindow: limits.effectiveWindow,
    contextWindow: limits.contextWindow,
    targetTokens,
  };
  const chain = compactionChain(core);
  const result = await core.compactions.run(input, undefined, (signal) => chain.run(input, signal));
  core.pauseChanges.fire(core.chain?.paused?.reason ?? null);
  if (!result) {
    core.pendingCompaction = undefined; // cancelled or nothing changed: nothing to record
    return undefined;
  }
  const after = gate.measure(result.messages);
  const report = compactionReport(result, {
    trigger: 'manual',
    beforeTokens: before.used,
    afterTokens: after.used,
    beforeMessages: result.beforeMessages,
    afterMessages: result.afterMessages,
    durationMs: result.durationMs,
  });
  recordCompaction(core, report);
  await core.persisting;
  core.session?.replaceMessages(result.messages);
  core.fireState();
  // Its summary request is billed to the session (compactions in a turn arrive as events).
  core.spend.addCompaction(report);
  return report;
}
