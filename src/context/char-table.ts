/**
 * The per-character facts of `char-table.json` (generated from the tokenizers by
 * `test/fixtures/context/generate-char-table.ts`), decoded once on first use: for each BMP code point
 * its script group, its category as the tokenizers' pre-token patterns see it, and what it costs alone
 * in each tokenizer family. Decoding takes well under a millisecond; nothing here throws.
 */
import table from './char-table.json';

/** Category bits of a table entry (`entry >> 4 & 3`). */
export const CAT_OTHER = 0;
export const CAT_LETTER = 1;
export const CAT_MARK = 2;
export const CAT_NUMBER = 3;

/** The families whose per-character cost the table holds, in the order the scan keeps them. */
export const COST_FAMILIES = ['o200k', 'cl100k', 'claude'] as const;

export interface CharTable {
  /** Per BMP code point: script group (bits 0–3), category (bits 4–5), uppercase (bit 6), lowercase (bit 7). */
  entry: Uint8Array;
  /** Per family (`COST_FAMILIES` order): tokens of the character alone minus one (0–3), 2 bits per code point. */
  cost: readonly Uint8Array[];
  /** The same costs per code point, all families in one byte (2 bits each, `COST_FAMILIES` order): one read a character. */
  costs: Uint8Array;
}

let decoded: CharTable | undefined;

export function charTable(): CharTable {
  if (decoded) return decoded;
  const entry = new Uint8Array(65536);
  let at = 0;
  for (const run of table.bmp.split(',')) {
    const star = run.indexOf('*');
    const value = parseInt(star < 0 ? run : run.slice(0, star), 36);
    const count = star < 0 ? 1 : parseInt(run.slice(star + 1), 36);
    entry.fill(value, at, Math.min(65536, at + count));
    at += count;
  }
  const cost = COST_FAMILIES.map((f) => new Uint8Array(Buffer.from(table.cost[f], 'base64')));
  const costs = new Uint8Array(65536);
  for (let cp = 0; cp < 65536; cp++) {
    let v = 0;
    for (let k = 0; k < cost.length; k++) v |= ((cost[k][cp >> 2] >> ((cp & 3) * 2)) & 3) << (2 * k);
    costs[cp] = v;
  }
  decoded = { entry, cost, costs };
  return decoded;
}

/** Tokens minus one of BMP code point `cp` alone in the family at `familyIndex` (0–3). */
export function costOf(t: CharTable, familyIndex: number, cp: number): number {
  return (t.cost[familyIndex][cp >> 2] >> ((cp & 3) * 2)) & 3;
}
