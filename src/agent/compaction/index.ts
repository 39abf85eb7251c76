/** The compaction chain that applies `context/compaction` plans. */
export { compactOutput, createCompactionChain } from './compaction-chain';
export type { ChainResult, CompactionChain, CompactionChainOptions } from './chain-types';
export { LoopBreaker, type LoopBreakerOptions, type PassOutcome, type PauseState } from './loop-breaker';
export { BackgroundSummary, type PreparedSummary, type SummaryOutcome } from './background-summary';
export { snapshotSummary, SUMMARY_UNAVAILABLE, type SnapshotSummaryOptions } from './snapshot-summary';
export { CompactionRunner, compactionChange, expectedSummarized, type RunnerPass } from './compaction-runner';
