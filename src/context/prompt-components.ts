/**
 * Where each piece of a request belongs in the meter's breakdown: the one
 * home of that decision. System sections are classified by their id (the builders below use these ids),
 * messages by what they are: the history message that stands in for compacted turns is the summary /
 * ledger, tool results are tool results, everything else is conversation. Pure; never throws.
 */
import type { Message, SystemSection } from '../providers/types';
import type { BudgetComponents } from './budget';
import { isHistoryMessage } from './compaction/history-message';

/** Ids of the system sections Headroom builds, static → dynamic. */
export const SECTION_IDS = {
  /** Base instructions (`buildSystemSections`). */
  base: 'base',
  /** Rules and memory files (AGENTS.md, CLAUDE.md, .headroom/rules.md). */
  rules: 'rules',
  /** The deferral note: what stays in context of the deferred tools. */
  deferral: 'deferred-tools',
  /** The forced-final-turn note. */
  final: 'context-full',
} as const;

/** The components a system section can belong to. */
export type SectionComponent = Extract<keyof BudgetComponents, 'system' | 'rules' | 'deferredTools'>;

/** The components a message can belong to. */
export type MessageComponent = Extract<keyof BudgetComponents, 'summary' | 'messages' | 'toolResults'>;

export function sectionComponent(section: SystemSection): SectionComponent {
  if (section.id === SECTION_IDS.rules) return 'rules';
  if (section.id === SECTION_IDS.deferral) return 'deferredTools';
  return 'system';
}

export function messageComponent(message: Message): MessageComponent {
  if (message.role === 'toolResult') return 'toolResults';
  if (isHistoryMessage(message)) return 'summary';
  return 'messages';
}
