/**
 * The dynamic, uncached system sections the loop appends after the static ones: the deferral note and
 * the forced-final-turn note. Both change only when the tool list changes too (tools come first in the
 * prompt, so the cached prefix is rebuilt then anyway). The context-status note, which changes from one
 * request to the next, is not a system section: it travels as the request's `trailingNote`, after the
 * last cache breakpoint. Pure.
 */
import { SECTION_IDS } from '../context/prompt-components';
import type { SystemSection } from '../providers/types';

export const DEFERRAL_SECTION_ID = SECTION_IDS.deferral;
export const FINAL_SECTION_ID = SECTION_IDS.final;

/** Tells the model why this request has no tools and what to do with it. */
export const FINAL_TURN_NOTE =
  '[Context full: the conversation has reached the context limit and compaction could not free enough space. ' +
  'Tools are disabled for this reply. Do not call tools. Give your final answer now: summarize what was done, ' +
  'what is left and the next steps, and tell the user to run /compact or start a new session to continue.]';

export interface DynamicNotes {
  /** From the deferral policy: "[N tools deferred to save context. Use tool_search to find them.]". */
  deferral?: string;
  /** Set for the forced final turn. */
  final?: boolean;
}

/**
 * `base` followed by the dynamic notes, never marked as cache breakpoints (they come last and stay
 * out of the cached system prefix).
 */
export function withDynamicNotes(base: readonly SystemSection[], notes: DynamicNotes): SystemSection[] {
  const out = [...base];
  if (notes.deferral && !notes.final) out.push({ id: DEFERRAL_SECTION_ID, text: notes.deferral });
  if (notes.final) out.push({ id: FINAL_SECTION_ID, text: FINAL_TURN_NOTE });
  return out;
}
