/**
 * The compaction a gate's preflight runs: the hook called towards the target of the trigger (the
 * model asked, a provider overflow, or the threshold) and the view checked again; the summary
 * prepared in the background before the threshold is reached; the target itself. The gate
 * (`context-gate.ts`) hands in what it knows. Never throws.
 */
import type { BudgetComponents } from '../context/budget';
import type { PreflightResult } from '../context/guard';
import type { ModelLimits } from '../context/models';
import type { Thresholds } from '../context/settings';
import {
  compactionReport,
  compactionTarget,
  preparedSummaryTarget,
  type AgentPrefix,
  type CompactionReport,
  type CompactionTrigger,
} from '../context/compaction';
import type { Message } from '../providers/types';
import type { CompactHook, CompactInput, CompactOutput } from './compact-hook';
import type { ContextAccounting } from './context-accounting';
import type { PreflightInput } from './turn-config';

/** The outcome of the guard's check, with the view it was made on (replaced when a compaction changed it). */
export interface Checked {
  messages: readonly Message[];
  components: BudgetComponents;
  result: PreflightResult;
  replaced?: Message[];
  compaction?: CompactionReport;
}

/** What compacting reads of the gate. */
export interface GateState {
  readonly limits: ModelLimits;
  readonly thresholds: Thresholds;
  readonly compactHook: CompactHook;
  readonly tokensOf: (message: Message) => number;
  readonly estimateOf: (message: Message) => number;
  readonly accounting: ContextAccounting;
  /** The prefix of the last request (system prompt and tools a summary request can reuse from the cache). */
  readonly prefix: AgentPrefix | undefined;
  /** Share of the effective window a compaction aims for (undefined: the default). */
  readonly share: number | undefined;
  readonly prepare: ((input: CompactInput) => void) | undefined;
  check(components: BudgetComponents, compactionAttempted: boolean): PreflightResult;
}

/**
 * Runs the compaction hook towards the target of the trigger (the model asked, a provider overflow,
 * or the threshold) and checks again; the report tells what it freed. A hook that throws or changes
 * nothing leaves the view as it was, checked as compacted (so a blocked request becomes final).
 */
export async function compactChecked(
  gate: GateState,
  input: PreflightInput,
  before: Checked,
  asked: { focus?: string } | undefined,
  signal: AbortSignal,
): Promise<Checked> {
  const { messages, components, result } = before;
  const started = Date.now();
  const trigger = input.reason === 'overflow' ? 'overflow' : asked ? 'tool' : 'threshold';
  const targetTokens = targetFor(gate, components, trigger);
  let out: CompactOutput | undefined;
  try {
    out = await gate.compactHook(
      {
        messages,
        tokensOf: gate.tokensOf,
        estimateOf: gate.estimateOf,
        targetTokens,
        trigger,
        focus: asked?.focus,
        effectiveWindow: gate.limits.effectiveWindow,
        contextWindow: gate.limits.contextWindow,
        prefix: gate.prefix,
        force: trigger === 'overflow' || result.status === 'block',
      },
      signal,
    );
  } catch {
    out = undefined;
  }
  if (!out || out.messages === messages) return { ...before, result: gate.check(components, true) };
  const after = gate.accounting.account(out.messages, input.system, input.tools).components;
  const checked = gate.check(after, true);
  const compaction = compactionReport(out, {
    trigger,
    beforeTokens: result.projection.total,
    afterTokens: checked.projection.total,
    beforeMessages: messages.length,
    afterMessages: out.messages.length,
    durationMs: Date.now() - started,
  });
  return { messages: out.messages, components: after, result: checked, replaced: out.messages, compaction };
}

/** Starts preparing a summary in the background (`options.prepare`), aimed to fit until the compact threshold. */
export function prepareSummary(gate: GateState, { messages, components }: Checked): void {
  if (!gate.prepare) return;
  const targetTokens = preparedSummaryTarget({
    effectiveWindow: gate.limits.effectiveWindow,
    fixedTokens: fixedOf(components),
    thresholds: gate.thresholds,
    share: gate.share,
  });
  try {
    gate.prepare({
      messages,
      tokensOf: gate.tokensOf,
      estimateOf: gate.estimateOf,
      targetTokens,
      trigger: 'threshold',
      effectiveWindow: gate.limits.effectiveWindow,
      contextWindow: gate.limits.contextWindow,
      prefix: gate.prefix,
    });
  } catch {
    // Preparing is an optimization.
  }
}

/** The compaction target (`context/compaction/target.ts`) for the components of a request. */
export function targetFor(
  gate: Pick<GateState, 'limits' | 'thresholds' | 'share'>,
  c: BudgetComponents,
  trigger: CompactionTrigger,
): number {
  return compactionTarget({
    effectiveWindow: gate.limits.effectiveWindow,
    fixedTokens: fixedOf(c),
    conversationTokens: c.messages + c.toolResults,
    trigger,
    thresholds: gate.thresholds,
    share: gate.share,
  });
}

/** Tokens sent with every request besides the conversation. */
function fixedOf(c: BudgetComponents): number {
  return c.system + c.tools + c.rules + c.deferredTools;
}
