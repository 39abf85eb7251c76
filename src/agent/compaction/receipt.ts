/**
 * The receipt of a compaction: a deterministic check, after each pass, of which specifics of the
 * removed part (`specifics.ts`) the compacted view still carries — in the summary, the pins, the
 * carried instructions, the work ledger or the kept turns — by kind, with the missing ones named. The
 * view is exactly what the next request carries as its messages, so the figures are that request's.
 * Compared on normalized text (runs of whitespace and the ledger's escaped line breaks as one space);
 * long items by their start (instructions by their first 100 characters, as the history message keeps
 * at least that much of each), numbers as whole numbers. Pure; yields to the event loop on long views;
 * never throws.
 */
import { timeSlicer } from '../../common/yield';
import { isHistoryMessage, parseHistoryMessage } from '../../context/compaction';
import { RECEIPT_KINDS, type CompactionReceipt, type ReceiptKind } from '../../protocol/view-models';
import type { Message } from '../../providers/types';
import { specificsOf, type Specific } from './specifics';

/** Missing items named on the receipt (the counts say how many there are in all). */
const NAMED = 40;
/** Items checked per kind, so a huge pass stays quick (the counts are of these). */
const PER_KIND = 200;
/** How much of an item must be found: the start of long ones. */
const PREFIX: Record<ReceiptKind, number> = { instructions: 100, errors: 120, commands: 120, decisions: 120, paths: 300, numbers: 300 };

/** Text as compared: escaped and real line breaks, tabs and runs of spaces as one space. */
export function receiptText(text: string): string {
  return text
    .replace(/\\[nrt]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The receipt of a pass that turned `before` into `after`. */
export async function compactionReceipt(before: readonly Message[], after: readonly Message[]): Promise<CompactionReceipt> {
  const slice = timeSlicer();
  const kept = new Set(after);
  const removed = before.filter((m) => !kept.has(m));
  const perKind = new Map<ReceiptKind, Specific[]>();
  for (const s of specificsOf(removed)) {
    const list = perKind.get(s.kind) ?? [];
    if (list.length < PER_KIND) list.push(s);
    perKind.set(s.kind, list);
  }
  await slice();
  const carried = receiptText(carriedText(after));
  const receipt: CompactionReceipt = { counts: [], missing: [] };
  for (const kind of RECEIPT_KINDS) {
    const items = perKind.get(kind) ?? [];
    if (!items.length) continue;
    let found = 0;
    for (const item of items) {
      if (carries(carried, item)) found++;
      else if (receipt.missing.length < NAMED) receipt.missing.push({ kind, text: item.text });
      await slice();
    }
    receipt.counts.push({ kind, kept: found, total: items.length });
  }
  return receipt;
}

function carries(carried: string, item: Specific): boolean {
  const needle = receiptText(item.text).slice(0, PREFIX[item.kind]);
  if (!needle) return true;
  if (item.kind !== 'numbers') return carried.includes(needle);
  return new RegExp(`(?<![\\w.])${needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`).test(carried);
}

/** Everything the messages carry as text: a history message by its parts, tool calls by their arguments. */
export function carriedText(messages: readonly Message[]): string {
  const out: string[] = [];
  for (const m of messages) {
    if (isHistoryMessage(m)) {
      const parts = parseHistoryMessage(m);
      if (parts) out.push(parts.summary ?? '', ...parts.pins, ...parts.instructions, parts.ledger ?? '');
      continue;
    }
    for (const p of m.content) {
      if (p.type === 'text') out.push(p.text);
      else if (p.type === 'toolCall')
        out.push(...Object.values(p.arguments ?? {}).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))));
    }
  }
  return out.join('\n');
}
