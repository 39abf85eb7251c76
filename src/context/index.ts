/**
 * Public API of the context engine. Deliberately does NOT re-export `encoder.ts` (it pulls the BPE
 * ranks into whatever imports it); only the token worker and tests/benches import that directly.
 */
export * from './models';
export * from './settings';
export * from './budget';
export * from './guard';
export * from './calibration';
export * from './turns';
export * from './message-tokens';
export * from './token-ledger';
export * from './token-worker-client';
export { createExactCounter, type ExactCounter, type BpeRanks } from './exact-counter';
export { utf8Length, byteEstimate } from './utf8';
