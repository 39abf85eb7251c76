import { z } from 'zod';
import type { SessionSpend } from '../context/cost';

/**
 * How a session's spend is kept in the sessions index (`sessions.spend`, JSON; since index v4). An
 * index from before v4, or a value that does not parse, reads as "no spend recorded": never an error.
 */

const amount = z.number().finite();
const count = z.number().finite().nonnegative();
const billed = (v: z.ZodNumber) => z.object({ input: v, output: v, cacheRead: v, cacheWrite: v });

export const SpendRecord = z.object({
  tokens: billed(count),
  dollars: billed(count),
  saved: amount,
  requests: count,
  unpriced: count,
});

/** The stored spend, or undefined when none is recorded or it is damaged. */
export function parseSpend(raw: unknown): SessionSpend | undefined {
  if (typeof raw !== 'string' || !raw) return undefined;
  try {
    const r = SpendRecord.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
