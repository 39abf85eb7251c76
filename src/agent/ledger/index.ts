/** The work ledger: kept by code from the tool calls, stored with the session, carried through compactions. */
export * from './work-ledger';
export * from './ledger-text';
export * from './ledger-schema';
export { observeToolCall } from './observe-tool';
export { LedgerRecorder, type LedgerKeep, type LedgerRecorderOptions, type LedgerSave } from './ledger-recorder';
export { WorkWatch, type WorkWatchOptions } from './work-watch';
export { repeatNote } from './repeat-guard';
export { errorLinesIn, checklistIn } from './ledger-scan';
export { rehydrationBlock, REHYDRATION_TITLE, type RehydrationOptions } from './rehydrate';
