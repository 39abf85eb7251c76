/**
 * The short LLM summary a saved snapshot carries ("save / history / restore snapshots with
 * a short LLM summary; summary failure → saved with '(summary unavailable)'"), so the history list
 * says what each snapshot holds. Never throws, never rejects.
 */
import { buildSummaryRequest } from '../../context/compaction';
import { complete, type Provider } from '../../providers/provider';
import type { Message } from '../../providers/types';

export const SUMMARY_UNAVAILABLE = '(summary unavailable)';

const SHORT =
  'Only for this summary: ignore the sections above and answer in at most two sentences (under 60 words) saying what the session was about and where it stands.';

export interface SnapshotSummaryOptions {
  provider: Provider;
  model: string;
  /** Input tokens the summary request may take (the quoted history is clipped to fit, newest kept). */
  maxInputChars?: number;
  signal?: AbortSignal;
}

/** A one- or two-sentence summary of `messages`, or SUMMARY_UNAVAILABLE when the model fails. */
export async function snapshotSummary(messages: readonly Message[], options: SnapshotSummaryOptions): Promise<string> {
  if (messages.length === 0) return SUMMARY_UNAVAILABLE;
  try {
    // The newest messages say most about where the session stands; keep the request small.
    const limit = options.maxInputChars ?? 24_000;
    let from = messages.length - 1;
    let size = JSON.stringify(messages[from]).length;
    while (from > 0 && size + JSON.stringify(messages[from - 1]).length <= limit) size += JSON.stringify(messages[--from]).length;
    const request = buildSummaryRequest(messages.slice(from), {
      model: options.model,
      maxOutputTokens: 200,
      focus: SHORT,
      toolChars: 200,
      assistantChars: 800,
    });
    const reply = await complete(options.provider, request, options.signal);
    const text = reply.content
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join('')
      .trim();
    if (reply.stopReason === 'error' || reply.stopReason === 'aborted' || !text) return SUMMARY_UNAVAILABLE;
    return text.length > 600 ? `${text.slice(0, 599)}…` : text;
  } catch {
    return SUMMARY_UNAVAILABLE;
  }
}
