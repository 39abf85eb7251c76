/**
 * The request that merges summaries of consecutive parts of a history into one (hierarchical
 * summarization, when the history does not fit the summarizer's window in one request). The parts are
 * quoted as data, oldest first. Pure; never throws.
 */
import type { ProviderRequest } from '../../providers/types';
import { SUMMARIZER_SYSTEM, SUMMARY_SECTIONS, type SummaryRequestOptions } from './summary-request';

// Our tag inside a quoted part is escaped so a part can never end (or fake) another.
const escape = (text: string) => text.replace(/<(\/?)(part)\b/g, '<$1\\$2');

export function buildMergeRequest(
  parts: readonly string[],
  options: Pick<SummaryRequestOptions, 'model' | 'focus' | 'pins' | 'maxOutputTokens'>,
): ProviderRequest {
  const out: string[] = [`These are ${parts.length} summaries of consecutive parts of one coding session, oldest first.`, ''];
  parts.forEach((p, i) => out.push(`<part n="${i + 1}">`, escape(p.trim()), '</part>', ''));
  if (options.pins?.length) {
    out.push('Pinned by the user (Headroom keeps these verbatim next to your summary; stay consistent with them):');
    for (const p of options.pins) out.push(`- ${p}`);
    out.push('');
  }
  out.push(
    'Merge them into one summary of the whole session: keep every user instruction, decision, path, command, error and number; ' +
      'where a later part supersedes an earlier one, keep the later state.',
    'Use exactly these sections (write "none" under a section with nothing to say):',
    ...SUMMARY_SECTIONS,
  );
  if (options.focus?.trim()) out.push('', `Focus: the user asked this summary to keep above all: ${options.focus.trim()}`);
  return {
    model: options.model,
    system: [{ id: 'summarizer', text: SUMMARIZER_SYSTEM }],
    messages: [{ role: 'user', content: [{ type: 'text', text: out.join('\n') }], timestamp: Date.now() }],
    tools: [],
    maxOutputTokens: options.maxOutputTokens ?? 2000,
    temperature: 0,
  };
}
