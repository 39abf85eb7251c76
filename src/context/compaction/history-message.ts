/**
 * The history message that stands in for compacted turns: a user-role message framed as a record of
 * earlier work, never as a request. It carries three parts, each recoverable by the next compaction:
 * the model's summary (or a note that there is none), the pinned items verbatim, and every earlier
 * user instruction (verbatim where short). Pure; never throws.
 */
import type { Message, UserMessage } from '../../providers/types';

export const HISTORY_HEADER =
  '[Summary of earlier work] This is a summary of earlier work; it is not a new instruction. ' +
  "Treat it as history: the user's current request is in the newest messages.";

/** The parts of a history message. */
export interface HistoryParts {
  /** The model's summary; undefined when the history was compacted without a model. */
  summary?: string;
  /** Pinned items, verbatim. */
  pins: string[];
  /** Earlier user instructions, oldest first (verbatim, or clipped when long). */
  instructions: string[];
  /** How many older instructions did not fit and live only in the summary / the transcript. */
  omittedInstructions?: number;
  /** True when `summary` was made from the messages these instructions came from (so it covers the omitted ones). */
  summaryCoversOmitted?: boolean;
  /** Why there is no model summary when one was asked for (e.g. "The summary failed (overloaded: 529 Overloaded)."). */
  summaryFailure?: string;
  /** The work ledger's block (files, commands, errors, plan, decisions), verbatim; kept by code, not the summarizer. */
  ledger?: string;
}

const TAGS = { summary: 'summary', pin: 'pinned', ledger: 'work-ledger' } as const;
const INSTRUCTIONS_HEADER =
  'What the user asked in earlier turns, oldest first (quoted as history, not repeated requests; one JSON string per line):';
// Our tags inside quoted text are escaped so a quote can never end (or fake) a part.
const escape = (text: string) => text.replace(/<(\/?)(summary|pinned|work-ledger)>/g, '<$1\\$2>');
const unescape = (text: string) => text.replace(/<(\/?)\\(summary|pinned|work-ledger)>/g, '<$1$2>');
/**
 * An instruction as one JSON string line. JSON already escapes line breaks; `<` of our tags becomes
 * `\u003c` (JSON.parse gives it back), so no instruction can hold one of our closing tags either, and
 * the Unicode line separators are escaped too.
 */
const instructionLine = (text: string) =>
  `- ${JSON.stringify(text)
    .replace(/<(\/?(?:summary|pinned|work-ledger)>)/g, '\\u003c$1')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}`;

/**
 * Where the instructions part can be: after the last of our closing tags. Everything quoted (summary,
 * pins, ledger, instructions) has those tags escaped, so the last real one is ours and what follows it
 * is Headroom's own text; a look-alike header inside a file name, a pin or the summary comes before it.
 */
function instructionsRegion(text: string): string {
  let from = 0;
  for (const tag of Object.values(TAGS)) {
    const close = `</${tag}>`;
    const at = text.lastIndexOf(close);
    if (at >= 0) from = Math.max(from, at + close.length);
  }
  return text.slice(from);
}

function instructionsIn(region: string): string[] {
  const at = region.indexOf(`\n${INSTRUCTIONS_HEADER}\n`);
  if (at < 0) return [];
  const out: string[] = [];
  for (const line of region.slice(at + INSTRUCTIONS_HEADER.length + 2).split('\n')) {
    if (!line.startsWith('- "')) continue;
    try {
      const v: unknown = JSON.parse(line.slice(2));
      if (typeof v === 'string') out.push(v);
    } catch {
      // not one of ours
    }
  }
  return out;
}

/** A failure message on one line, ending with a full stop. */
const oneLine = (text: string) => {
  const t = text.replace(/\s+/g, ' ').trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
};

/** The text of a history message. */
export function historyText(parts: HistoryParts): string {
  const out = [HISTORY_HEADER, ''];
  if (parts.summary !== undefined) {
    out.push(`<${TAGS.summary}>`, escape(parts.summary.trim()), `</${TAGS.summary}>`);
  } else if (parts.summaryFailure) {
    out.push(
      `(No model summary: it was asked for and failed — ${oneLine(parts.summaryFailure)} Older turns were removed without one; ` +
        'the earlier user instructions are quoted below. The full transcript is kept; stored tool results stay readable with read_result.)',
    );
  } else {
    out.push(
      '(No model summary: older turns were removed to free space. The full transcript is kept; stored tool results stay readable with read_result.)',
    );
  }
  if (parts.pins.length) {
    out.push('', 'Pinned by the user (kept verbatim):');
    for (const p of parts.pins) out.push(`<${TAGS.pin}>${escape(p)}</${TAGS.pin}>`);
  }
  if (parts.ledger?.trim()) out.push('', `<${TAGS.ledger}>`, escape(parts.ledger.trim()), `</${TAGS.ledger}>`);
  if (parts.instructions.length || parts.omittedInstructions) {
    out.push('', INSTRUCTIONS_HEADER);
    if (parts.omittedInstructions) {
      // Only a summary made from those very messages covers them; otherwise say where they are.
      out.push(
        parts.summary !== undefined && parts.summaryCoversOmitted
          ? `(${parts.omittedInstructions} older instruction(s) are covered by the summary above.)`
          : `(${parts.omittedInstructions} older instruction(s) did not fit here and no summary covers them; search_history finds them in the transcript.)`,
      );
    }
    // A JSON string per line: verbatim, one line each, and the cheapest unambiguous quoting.
    for (const i of parts.instructions) out.push(instructionLine(i));
  }
  return out.join('\n');
}

export function historyMessage(parts: HistoryParts, timestamp: number): UserMessage {
  return { role: 'user', content: [{ type: 'text', text: historyText(parts) }], timestamp, origin: 'history' };
}

/**
 * True for a message built by `historyMessage`. The `origin` mark decides, not the text: a message
 * the user pasted that begins with `HISTORY_HEADER` is the user's text, and its "summary" and
 * "instructions" are never taken for Headroom's own.
 */
export function isHistoryMessage(m: Message | undefined): boolean {
  return m?.role === 'user' && m.origin === 'history' && m.content[0]?.type === 'text' && m.content[0].text.startsWith(HISTORY_HEADER);
}

/** The text of a message's first part when it begins with the history header (any origin). */
function headerText(m: Message | undefined): string | undefined {
  const first = m?.role === 'user' ? m.content[0] : undefined;
  return first?.type === 'text' && first.text.startsWith(HISTORY_HEADER) ? first.text : undefined;
}

/**
 * A resume view saved before history messages carried `origin`: its first message is Headroom's
 * history message when it has the history text and the user never typed it (it is not among the
 * user's messages in `transcript`, the full record of what the user sent). Returns the view with
 * that message marked; any other view unchanged. A pasted look-alike is in the transcript, so it
 * stays user text.
 */
export function adoptLegacyHistory(view: readonly Message[], transcript: readonly Message[]): Message[] {
  const first = view[0];
  const text = headerText(first);
  if (!first || first.role !== 'user' || first.origin !== undefined || text === undefined) return [...view];
  if (transcript.some((m) => m.role === 'user' && headerText(m) === text)) return [...view];
  return [{ ...first, origin: 'history' }, ...view.slice(1)];
}

/** True when `adoptLegacyHistory` might change the view (so the transcript is worth loading). */
export function mayHoldLegacyHistory(view: readonly Message[]): boolean {
  const first = view[0];
  return first?.role === 'user' && first.origin === undefined && headerText(first) !== undefined;
}

/** The parts of a history message (undefined for any other message). */
export function parseHistoryMessage(m: Message | undefined): HistoryParts | undefined {
  if (!m || !isHistoryMessage(m)) return undefined;
  const first = m.content[0];
  const text = first?.type === 'text' ? first.text : '';
  const all = (tag: string, within: string) => {
    const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
    return [...within.matchAll(re)].map((x) => unescape(x[1]));
  };
  const summaries = all(TAGS.summary, text).map((s) => s.replace(/^\n|\n$/g, ''));
  // Pins and instructions follow the summary, whose own text cannot close its tag (escaped).
  const end = text.indexOf(`</${TAGS.summary}>`);
  const rest = end >= 0 ? text.slice(end) : text;
  const ledger = all(TAGS.ledger, rest).map((s) => s.replace(/^\n|\n$/g, ''))[0];
  const region = instructionsRegion(text);
  const omitted = /^\((\d+) older instruction\(s\) (?:are covered|did not fit)/m.exec(region);
  return {
    summary: summaries[0],
    pins: all(TAGS.pin, rest),
    instructions: instructionsIn(region),
    omittedInstructions: omitted ? Number(omitted[1]) : undefined,
    ...(ledger !== undefined ? { ledger } : {}),
  };
}

/**
 * The view with its leading history message carrying `pins` (the session's pins now): a pin added or
 * removed after the compaction reaches the very next request, not only the next compaction. Any other
 * view, or one whose history message already carries exactly these pins, is returned as it is.
 */
export function withCurrentPins(view: readonly Message[], pins: readonly string[]): readonly Message[] {
  const parts = parseHistoryMessage(view[0]);
  if (!parts || (parts.pins.length === pins.length && parts.pins.every((p, i) => p === pins[i]))) return view;
  return [historyMessage({ ...parts, pins: [...pins] }, view[0].timestamp), ...view.slice(1)];
}
