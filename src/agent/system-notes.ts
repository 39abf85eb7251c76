/**
 * The dynamic, uncached system sections the loop appends after the static ones: the deferral note,
 * the 80 % awareness note and the forced-final-turn note. Pure.
 */
import type { SystemSection } from '../providers/types';

export const DEFERRAL_SECTION_ID = 'deferred-tools';
export const AWARENESS_SECTION_ID = 'context-status';
export const FINAL_SECTION_ID = 'context-full';

/** Tells the model why this request has no tools and what to do with it. */
export const FINAL_TURN_NOTE =
  '[Context full: the conversation has reached the context limit and compaction could not free enough space. ' +
  'Tools are disabled for this reply. Do not call tools. Give your final answer now: summarize what was done, ' +
  'what is left and the next steps, and tell the user to run /compact or start a new session to continue.]';

export interface DynamicNotes {
  /** From the deferral policy: "[N tools deferred to save context. Use tool_search to find them.]". */
  deferral?: string;
  /** From the gate, at or over the note threshold. */
  awareness?: string;
  /** Set for the forced final turn. */
  final?: boolean;
}

/**
 * `base` followed by the dynamic notes, never marked as cache breakpoints (they change between
 * requests, so they come last and stay out of the cached prefix).
 */
export function withDynamicNotes(base: readonly SystemSection[], notes: DynamicNotes): SystemSection[] {
  const out = [...base];
  if (notes.deferral && !notes.final) out.push({ id: DEFERRAL_SECTION_ID, text: notes.deferral });
  if (notes.awareness && !notes.final) out.push({ id: AWARENESS_SECTION_ID, text: notes.awareness });
  if (notes.final) out.push({ id: FINAL_SECTION_ID, text: FINAL_TURN_NOTE });
  return out;
}
