/** Public surface of the tools layer. */
export * from './ports';
export * from './tool-result';
export * from './define-tool';
export * from './admission';
export * from './deferral';
export * from './registry';
export * from './external-tool';
export * from './memory-results';
export * from './result-paging';
export * from './result-port';
export * from './history-search';
export * from './message-refs';
export * from './history-port';
export { createNodeWorkspace, type NodeWorkspaceOptions } from './node-workspace';
export * from './builtin/index';
export { findRipgrep, ripgrepCandidates } from './ripgrep-path';
