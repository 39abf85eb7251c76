/**
 * The specifics a compaction must not lose without saying so, read from messages: file paths, shell
 * commands, error lines, numbers, decisions and the user's instructions. From the model's tool calls
 * (their arguments), from failed tool results, from the user's and the model's words, and from an
 * earlier history message (its summary, carried instructions and work-ledger lines). Deterministic:
 * the same messages give the same list. Pure; never throws.
 */
import { collectInstructions, isHistoryMessage, parseHistoryMessage } from '../../context/compaction';
import type { Message } from '../../providers/types';
import { rejectionDecision } from '../../tools/builtin/approval';
import { errorLinesIn } from '../ledger/ledger-scan';
import { REHYDRATION_TITLE } from '../ledger/rehydrate';
import type { ReceiptKind } from '../../protocol/view-models';

export interface Specific {
  kind: ReceiptKind;
  text: string;
}

const EXTENSIONS =
  'ts|tsx|js|jsx|mjs|cjs|json|jsonc|md|mdx|py|rs|go|java|kt|kts|swift|c|h|cc|cpp|hpp|cs|rb|php|css|scss|less|html|vue|svelte|yml|yaml|toml|ini|cfg|conf|env|txt|sh|bash|zsh|ps1|sql|xml|lock|gradle|proto|graphql|csv|log';
/** A path: folders and a file with a known extension, or at least two slash-separated parts. Never a URL. */
const PATH = new RegExp(
  `(?<![\\w@./:-])((?:\\.{1,2}/)?(?:[\\w@.-]+/)*[\\w@-][\\w@.-]*\\.(?:${EXTENSIONS})|(?:\\.{1,2}/)?[\\w@-][\\w@.-]*(?:/[\\w@.-]+)+)(?![\\w/-])`,
  'g',
);
/** A number worth keeping: at least three digits (ports, limits, versions, counts with units). */
const NUMBER = /(?<![\w./-])(\d[\d,._:]*\d(?:%|ms|s|k|kb|mb|gb|px)?)(?![\w/-])/gi;
/** Per message, so one listing or log cannot flood the receipt. */
const PER_MESSAGE = 12;

const clip = (t: string, n: number) => (t.length > n ? t.slice(0, n) : t);
const firstLine = (t: string) =>
  t
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '') ?? '';

/** The specifics of `messages`, de-duplicated by kind and text, in order of appearance. */
export function specificsOf(messages: readonly Message[]): Specific[] {
  const out = new Map<string, Specific>();
  const add = (kind: ReceiptKind, text: string) => {
    const t = clip(text.trim(), 300);
    if (t && !out.has(`${kind}\0${t}`)) out.set(`${kind}\0${t}`, { kind, text: t });
  };
  for (const text of collectInstructions(messages)) add('instructions', text);
  for (const m of messages) {
    if (isHistoryMessage(m)) fromHistory(m, add);
    else if (m.role === 'user') fromWords(m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n'), add);
    else if (m.role === 'assistant') {
      fromWords(m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n'), add);
      for (const p of m.content) if (p.type === 'toolCall') fromCall(p.name, p.arguments ?? {}, add);
    } else if (m.isError) {
      const text = m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
      const rejected = rejectionDecision(text);
      if (rejected) add('decisions', rejected);
      // A command's output starts with its own echo ("$ npm test"): the error is what follows.
      else add('errors', firstLine(text.startsWith('$ ') ? text.slice(text.indexOf('\n') + 1) : text));
    }
  }
  return [...out.values()];
}

type Add = (kind: ReceiptKind, text: string) => void;

function fromWords(text: string, add: Add): void {
  for (const line of errorLinesIn(text)) add('errors', line);
  for (const [re, kind] of [
    [PATH, 'paths'],
    [NUMBER, 'numbers'],
  ] as const) {
    let n = 0;
    for (const m of text.slice(0, 100_000).matchAll(re)) {
      if (kind === 'numbers' && m[1].replace(/\D/g, '').length < 3) continue; // "0.1", "42": too common to mean much
      if (kind === 'paths' && /^\d[\d./]*$/.test(m[1])) continue; // "1/2", "2024/11": not paths
      add(kind, m[1]);
      if (++n >= PER_MESSAGE) break;
    }
  }
}

function fromCall(name: string, args: Record<string, unknown>, add: Add): void {
  if (typeof args.path === 'string') add('paths', args.path);
  if (name === 'run_command' && typeof args.command === 'string') add('commands', args.command);
  if (name === 'update_plan' && Array.isArray(args.decisions))
    for (const d of args.decisions) if (typeof d === 'string') add('decisions', d);
}

/** An earlier history message: its summary's words, and its work-ledger lines (not the re-read files). */
function fromHistory(m: Message, add: Add): void {
  const parts = parseHistoryMessage(m);
  if (!parts) return;
  if (parts.summary) fromWords(parts.summary, add);
  const ledger = (parts.ledger ?? '').split(REHYDRATION_TITLE)[0];
  for (const line of ledger.split('\n')) {
    const command = /^- `(.+)` → exit /.exec(line);
    const file = /^- (.+?) — (?:read|created|modified|deleted)\b/.exec(line);
    const error = /^- (?:[^:]+): (.+) \(turn \d+\)$/.exec(line);
    const decision = /^- (.+) \((?:user|model), turn \d+\)$/.exec(line);
    if (command) add('commands', command[1]);
    else if (file) add('paths', file[1]);
    else if (decision) add('decisions', decision[1]);
    else if (error) add('errors', error[1]);
  }
}
