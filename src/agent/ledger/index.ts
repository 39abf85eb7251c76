/** The work ledger: kept by code from the tool calls, stored with the session, carried through compactions. */
export * from './work-ledger';
export * from './ledger-text';
export * from './ledger-schema';
export { observeToolCall } from './observe-tool';
export { LedgerRecorder, type LedgerRecorderOptions, type LedgerSave } from './ledger-recorder';
export { rehydrationBlock, REHYDRATION_TITLE, type RehydrationOptions } from './rehydrate';
