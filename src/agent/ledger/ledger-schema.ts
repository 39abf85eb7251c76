/** The stored ledger's shape, validated when a session is opened (a damaged record starts an empty ledger). Pure. */
import { z } from 'zod';
import type { LedgerState } from './work-ledger';

const int = z.number().int().min(0);
const turn = z.number().int();
/** A digest or content hash (hex). */
const hash = z.string().regex(/^[0-9a-f]{8,64}$/);

const LedgerStateSchema = z.object({
  version: z.literal(1),
  turn: int,
  files: z.array(
    z.object({
      path: z.string(),
      action: z.enum(['read', 'created', 'modified', 'deleted']),
      turn,
      changedTurn: turn.optional(),
      via: z.string().optional(),
      contentHash: hash.optional(),
      editKey: hash.optional(),
    }),
  ),
  commands: z.array(
    z.object({
      command: z.string(),
      exitCode: z.number().int().nullable(),
      cwd: z.string(),
      turn,
      state: hash.optional(),
      refId: z.string().max(200).optional(),
    }),
  ),
  errors: z.array(z.object({ tool: z.string(), firstLine: z.string(), turn })),
  plan: z.array(z.object({ text: z.string(), status: z.enum(['open', 'in_progress', 'done']), doneTurn: turn.optional() })),
  decisions: z.array(z.object({ text: z.string(), by: z.enum(['user', 'model']), turn })),
  rolledUp: z.object({
    // `deleted` came later: a ledger stored before it has none.
    files: z.object({ read: int, created: int, modified: int, deleted: int.default(0) }),
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
