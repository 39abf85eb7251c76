/**
 * How a number is written for the model (tool results, stubs, the guard's notes, refusals): whole and
 * exact with thousands separators ("36,760 bytes", "12,000 tokens"), never rounded to "36.8 KB" or
 * "12k", because the model compares and does arithmetic on them. The numbers people read are
 * `protocol/format.ts`'s. Pure.
 */

/** `n` rounded to a whole number, with en-US thousands separators: 1234567.4 → "1,234,567". */
export function modelNumber(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
