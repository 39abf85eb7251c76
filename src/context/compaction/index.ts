/** Compaction planning: what to clear, where to cut, what to summarize, the summary request. Pure. */
export * from './clear-results';
export * from './history-message';
export * from './instructions';
export * from './summary-plan';
export * from './summary-request';
export * from './history-parts';
export * from './summary-merge';
export * from './summary-cached';
export * from './drop-oldest-turns';
export * from './drop-with-history';
export * from './summary-budget';
export * from './target';
export * from './context-status';
export * from './report';
export * from './what-left';
export * from './native-compaction';
export * from './context-editing';
