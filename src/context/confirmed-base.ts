/**
 * The confirmed base: after a response, the provider's reported input for
 * that exact request is the truth for everything the request held; what was added since is an
 * estimated delta. Pure; never throws.
 */
import type { Message, SystemSection, ToolDefinition } from '../providers/types';
import { COMPONENT_NAMES, type BudgetComponents } from './budget';
import { EstimateBand } from './estimate-band';

/** The last request the provider reported on. */
export interface ConfirmedBase {
  /** The model that reported it (another model's tokenizer counts differently). */
  model: string;
  /** The request's messages (the same objects the context view holds). */
  messages: readonly Message[];
  /** Its system sections and tool definitions (what changed since is estimated). */
  system: readonly SystemSection[];
  tools: readonly ToolDefinition[];
  /** Its per-request note, which the next request does not repeat. */
  note?: string;
  /** Input the provider reported for it: uncached + cache reads + cache writes. */
  reported: number;
}

/**
 * What the meter has learned from provider reports, kept by the session across turns and gates (a
 * gate is built per turn): the confirmed base and the observed estimate errors.
 */
export class EstimateState {
  base: ConfirmedBase | undefined;
  readonly band = new EstimateBand();

  /** Forgets the base (the view was replaced: compaction, clear, session switch). */
  reset(): void {
    this.base = undefined;
  }
}

/** True when `view` still starts with the base's messages (same objects): nothing was compacted or cleared since. */
export function baseApplies(base: ConfirmedBase | undefined, view: readonly Message[], model: string): base is ConfirmedBase {
  if (!base || base.model !== model || view.length < base.messages.length) return false;
  for (let i = 0; i < base.messages.length; i++) if (view[i] !== base.messages[i]) return false;
  return true;
}

/**
 * Scales components to sum exactly to `total` (largest-remainder rounding), so the breakdown of a
 * confirmed figure still adds up to it. Components stay ≥ 0; all-zero components stay zero.
 */
export function scaleToTotal(c: BudgetComponents, total: number): BudgetComponents {
  const sum = COMPONENT_NAMES.reduce((s, n) => s + c[n], 0);
  const target = Math.max(0, Math.round(total));
  if (sum <= 0 || sum === target) return { ...c };
  const exact = COMPONENT_NAMES.map((n) => (c[n] * target) / sum);
  const out = { ...c };
  let assigned = 0;
  COMPONENT_NAMES.forEach((n, i) => {
    out[n] = Math.floor(exact[i]);
    assigned += out[n];
  });
  const order = COMPONENT_NAMES.map((n, i) => ({ n, r: exact[i] - Math.floor(exact[i]) })).sort((a, b) => b.r - a.r);
  for (let k = 0; assigned < target; k = (k + 1) % order.length, assigned++) out[order[k].n]++;
  return out;
}
