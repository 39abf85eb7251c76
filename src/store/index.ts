export { openStore, DEFAULT_LIMITS, CalibrationStore, type HeadroomStore, type StoreOptions } from './store';
export type { SessionStore } from './session-store';
export type { ResultStore } from './result-store';
export type { StoreProblem } from './problems';
export * from './types';
