/** The stored ledger's shape, validated when a session is opened (a damaged record starts an empty ledger). Pure. */
import { z } from 'zod';
import type { LedgerState } from './work-ledger';

const int = z.number().int().min(0);
const turn = z.number().int();

const LedgerStateSchema = z.object({
  version: z.literal(1),
  turn: int,
  files: z.array(z.object({ path: z.string(), action: z.enum(['read', 'created', 'modified']), turn, changedTurn: turn.optional() })),
  commands: z.array(z.object({ command: z.string(), exitCode: z.number().int().nullable(), cwd: z.string(), turn })),
  errors: z.array(z.object({ tool: z.string(), firstLine: z.string(), turn })),
  plan: z.array(z.object({ text: z.string(), status: z.enum(['open', 'in_progress', 'done']) })),
  decisions: z.array(z.object({ text: z.string(), by: z.enum(['user', 'model']), turn })),
  rolledUp: z.object({
    files: z.object({ read: int, created: int, modified: int }),
    commands: z.object({ ok: int, failed: int }),
    errors: int,
    decisions: int,
    doneItems: int,
  }),
});

/** The ledger state in `json`, or undefined when it is not one (never throws). */
export function parseLedgerState(json: string | undefined): LedgerState | undefined {
  if (!json) return undefined;
  try {
    const r = LedgerStateSchema.safeParse(JSON.parse(json));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
