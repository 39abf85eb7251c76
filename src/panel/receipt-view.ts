/**
 * A compaction's receipt on its card, in plain words: "kept 23/25 paths, 11/11 commands, 4/5 errors"
 * and the missing items, each of which one click pins (a pin is carried verbatim in every request from
 * then on). What a pin of a missing item says is decided here too, so the card and the host agree.
 * Pure (no vscode); never throws.
 */
import type { CompactionReceipt, ReceiptKind, ReceiptView } from '../protocol/view-models';

const NAMES: Record<ReceiptKind, [string, string]> = {
  instructions: ['instruction', 'instructions'],
  errors: ['error', 'errors'],
  commands: ['command', 'commands'],
  paths: ['path', 'paths'],
  decisions: ['decision', 'decisions'],
  numbers: ['number', 'numbers'],
};

/** How a pinned missing item reads in the context (an instruction as the user wrote it). */
const PIN_PREFIX: Record<ReceiptKind, string> = {
  instructions: '',
  errors: 'An error seen earlier: ',
  commands: 'A command run earlier: ',
  paths: 'A file from earlier work: ',
  decisions: 'A decision made earlier: ',
  numbers: 'A number from earlier work: ',
};

/** The pin that puts a missing item back into the context. */
export function receiptPin(item: { kind: ReceiptKind; text: string }): string {
  return `${PIN_PREFIX[item.kind]}${item.text}`;
}

/** The card's receipt; `pins`: the session's pins, so items pinned already say so. */
export function receiptView(receipt: CompactionReceipt, pins: readonly string[] = []): ReceiptView {
  const counts = receipt.counts.filter((c) => c.total > 0);
  const line = counts.length
    ? `kept ${counts.map((c) => `${c.kept}/${c.total} ${NAMES[c.kind][c.total === 1 ? 0 : 1]}`).join(', ')}`
    : 'nothing specific left the context';
  const missingCount = counts.reduce((s, c) => s + (c.total - c.kept), 0);
  const pinned = new Set(pins);
  return {
    line,
    missing: receipt.missing.map((m) => (pinned.has(receiptPin(m)) ? { ...m, pinned: true } : { ...m })),
    more: Math.max(0, missingCount - receipt.missing.length),
  };
}
