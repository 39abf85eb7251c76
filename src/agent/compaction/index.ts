/** The compaction chain that applies `context/compaction` plans (issue 7). */
export { createCompactionChain, type ChainResult, type CompactionChain, type CompactionChainOptions } from './compaction-chain';
export { LoopBreaker, type LoopBreakerOptions, type PassOutcome, type PauseState } from './loop-breaker';
export { BackgroundSummary, type PreparedSummary, type SummaryOutcome } from './background-summary';
export { dropWithHistory, type DropWithHistoryOptions } from './drop-with-history';
export { snapshotSummary, SUMMARY_UNAVAILABLE, type SnapshotSummaryOptions } from './snapshot-summary';
