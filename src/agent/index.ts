/** Public surface of the agent layer: the loop, its hooks and events, the default context gate, the session. */
export * from './events';
export * from './turn-config';
export { runTurn, DEFAULT_MAX_ITERATIONS } from './run-turn';
export { createContextGate, type ContextGateOptions, type DefaultContextGate } from './context-gate';
export { scheduledCompactPort } from './scheduled-compact-port';
export { dropOldestTurnsHook, type CompactHook, type CompactInput, type CompactOutput } from './compact-hook';
export { withDynamicNotes, FINAL_TURN_NOTE, type DynamicNotes } from './system-notes';
export { AgentSession, userMessage, type AgentSessionOptions, type SessionPersistence } from './session';
export { storePersistence, type TurnAppender } from './store-persistence';
export { SessionGate, sameLimits, sizeWarning } from './session-gate';
