/**
 * The work ledger: what the agent did, kept by code rather than by the summarizer's
 * goodwill — files read / created / modified, commands with exit codes, errors seen, the plan and
 * decisions. It is updated as the turn runs, stored with the session, and carried verbatim into the
 * context after every compaction. Bounded: when a list grows past its limit the oldest entries roll up
 * into counts (shown in the block), never silently dropped. Every entry is one line (`ledgerEntry`).
 * Pure and synchronous; never throws.
 */
import { singleLine } from '../../common/single-line';
import { checklistPlan, mergePlan, type LedgerPlanItem } from './ledger-plan';

export type FileAction = 'read' | 'created' | 'modified' | 'deleted';
export type { LedgerPlanItem, PlanStatus } from './ledger-plan';

export interface LedgerFile {
  path: string;
  /** The last action, except that a read never hides an earlier change (a changed file stays "modified"). */
  action: FileAction;
  /** Turn of the last action. */
  turn: number;
  /** Turn of the last creation or modification (re-hydration picks the most recent). */
  changedTurn?: number;
  /** What changed it when that was not a file tool: a command ("`npm run fmt`") or an external tool's name. */
  via?: string;
  /** Hash of the content the last write or edit left (the repeat guard compares it with the file now). */
  contentHash?: string;
  /** Identity of the last edit applied (`editKey`), so the same edit is recognised when it comes again. */
  editKey?: string;
}

export interface LedgerCommand {
  command: string;
  /** null: killed or timed out. */
  exitCode: number | null;
  cwd: string;
  turn: number;
  /** Digest of the workspace's files right after it ran (`tools/file-versions.ts`); absent when unknown. */
  state?: string;
  /** Where its output is stored (read_result), when it is. */
  refId?: string;
}

export interface LedgerError {
  tool: string;
  firstLine: string;
  turn: number;
}

export interface LedgerDecision {
  text: string;
  by: 'user' | 'model';
  turn: number;
}

/** Counts of entries that rolled up (left the lists because of the bounds). */
export interface RolledUp {
  files: Record<FileAction, number>;
  commands: { ok: number; failed: number };
  errors: number;
  decisions: number;
  doneItems: number;
}

/** The persisted form (JSON). */
export interface LedgerState {
  version: 1;
  /** Turns started in this session so far. */
  turn: number;
  files: LedgerFile[];
  commands: LedgerCommand[];
  errors: LedgerError[];
  plan: LedgerPlanItem[];
  decisions: LedgerDecision[];
  rolledUp: RolledUp;
}

/** What else a file change records (`recordFile`). */
export interface FileExtra {
  via?: string;
  contentHash?: string;
  editKey?: string;
}

export interface LedgerLimits {
  files: number;
  commands: number;
  errors: number;
  decisions: number;
  /** Done plan items kept listed; older done items roll up (open ones never do). */
  doneItems: number;
}

export const DEFAULT_LEDGER_LIMITS: LedgerLimits = { files: 40, commands: 30, errors: 20, decisions: 20, doneItems: 12 };

/** Longest text kept for one entry (a line in the block); longer ones are clipped with an ellipsis. */
const MAX_ENTRY_CHARS = 240;

export function emptyLedgerState(): LedgerState {
  return {
    version: 1,
    turn: 0,
    files: [],
    commands: [],
    errors: [],
    plan: [],
    decisions: [],
    rolledUp: {
      files: { read: 0, created: 0, modified: 0, deleted: 0 },
      commands: { ok: 0, failed: 0 },
      errors: 0,
      decisions: 0,
      doneItems: 0,
    },
  };
}

export class WorkLedger {
  private state: LedgerState;
  private readonly limits: LedgerLimits;
  private revision = 0;

  constructor(initial?: LedgerState, limits: Partial<LedgerLimits> = {}) {
    this.state = initial ? structuredClone(initial) : emptyLedgerState();
    this.limits = { ...DEFAULT_LEDGER_LIMITS, ...limits };
  }

  /** Changes on every update (so callers can tell whether to save). */
  get version(): number {
    return this.revision;
  }

  get turn(): number {
    return this.state.turn;
  }

  /** A copy of the state (for persistence and views). */
  toJSON(): LedgerState {
    return structuredClone(this.state);
  }

  /**
   * Starts the record over from `state` (empty by default), keeping the turn count: the context was
   * cleared or rewound, and the block the model sees after a compaction must not bring back work the
   * context no longer has.
   */
  reset(state: LedgerState = { ...emptyLedgerState(), turn: this.state.turn }): void {
    this.state = structuredClone(state);
    this.changed();
  }

  /** A new turn starts: later entries carry its number. */
  startTurn(): void {
    this.state.turn++;
    this.changed();
  }

  recordFile(path: string, action: FileAction, extra: FileExtra = {}): void {
    const p = ledgerEntry(path);
    if (!p) return;
    const files = this.state.files;
    const at = files.findIndex((f) => f.path === p);
    const previous = at >= 0 ? files.splice(at, 1)[0] : undefined;
    const turn = this.state.turn;
    let entry: LedgerFile;
    if (action === 'read') {
      entry = previous?.changedTurn !== undefined ? { ...previous, turn } : { path: p, action, turn };
    } else {
      // A file created and then edited is still one this session created.
      const kept = action === 'modified' && previous?.action === 'created' ? 'created' : action;
      entry = { path: p, action: kept, turn, changedTurn: turn };
      if (extra.via) entry.via = ledgerEntry(extra.via);
      if (extra.contentHash) entry.contentHash = extra.contentHash;
      if (extra.editKey) entry.editKey = extra.editKey;
    }
    files.push(entry); // most recent last
    while (files.length > this.limits.files) {
      // Read-only files roll up first, then the oldest changed ones.
      const i = files.findIndex((f) => f.changedTurn === undefined);
      const [gone] = files.splice(i >= 0 ? i : 0, 1);
      this.state.rolledUp.files[gone.action]++;
    }
    this.changed();
  }

  /** Records a finished command (`state`: the workspace's digest right after it); returns its entry. */
  recordCommand(command: string, exitCode: number | null, cwd: string, state?: string): LedgerCommand {
    const list = this.state.commands;
    const entry: LedgerCommand = { command: ledgerEntry(command), exitCode, cwd: ledgerEntry(cwd || '.'), turn: this.state.turn };
    if (state) entry.state = state;
    list.push(entry);
    while (list.length > this.limits.commands) {
      const gone = list.shift()!;
      if (gone.exitCode === 0) this.state.rolledUp.commands.ok++;
      else this.state.rolledUp.commands.failed++;
    }
    this.changed();
    return entry;
  }

  /** Notes where a recorded command's output is stored (a no-op once the entry rolled up). */
  attachRef(entry: LedgerCommand, refId: string): void {
    if (!this.state.commands.includes(entry)) return;
    entry.refId = ledgerEntry(refId);
    this.changed();
  }

  /**
   * Records an error by its first line. `seen` (an error found in the model's or the user's words) is
   * skipped when the ledger already holds it: the model often repeats an error a tool reported.
   */
  recordError(tool: string, text: string, options: { seen?: boolean } = {}): void {
    const firstLine = ledgerEntry(
      text
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l !== '') ?? '(no message)',
    );
    const list = this.state.errors;
    const last = list[list.length - 1];
    if (last && last.tool === ledgerEntry(tool) && last.firstLine === firstLine && last.turn === this.state.turn) return; // a retry of the same failure
    if (options.seen && list.some((e) => e.firstLine.includes(firstLine) || firstLine.includes(e.firstLine))) return;
    list.push({ tool: ledgerEntry(tool), firstLine, turn: this.state.turn });
    while (list.length > this.limits.errors) {
      list.shift();
      this.state.rolledUp.errors++;
    }
    this.changed();
  }

  /**
   * Replaces the plan (the model sends the whole list). A step that was done stays done unless it is in
   * `reopen` (`mergePlan`); done items past the limit roll up, oldest first. Returns the steps kept done.
   */
  setPlan(items: readonly LedgerPlanItem[], reopen: readonly string[] = []): LedgerPlanItem[] {
    const incoming = items.map((i) => ({ text: ledgerEntry(i.text), status: i.status })).filter((i) => i.text !== '');
    const { plan, keptDone } = mergePlan(this.state.plan, incoming, { turn: this.state.turn, reopen: reopen.map((r) => ledgerEntry(r)) });
    let done = plan.filter((i) => i.status === 'done').length;
    const kept: LedgerPlanItem[] = [];
    for (const item of plan) {
      if (item.status === 'done' && done > this.limits.doneItems) {
        done--;
        this.state.rolledUp.doneItems++;
        continue;
      }
      kept.push(item);
    }
    this.state.plan = kept;
    this.changed();
    return keptDone;
  }

  /**
   * Statuses the model stated in its own words (a markdown checklist, not `update_plan`): steps of the
   * plan with the same text take the stated status (a done step stays done); without a plan, the list
   * becomes the plan.
   */
  noteChecklist(items: readonly LedgerPlanItem[]): void {
    const stated = items.map((i) => ({ text: ledgerEntry(i.text), status: i.status })).filter((i) => i.text !== '');
    const next = checklistPlan(this.state.plan, stated, this.state.turn);
    if (next) this.setPlan(next);
  }

  markDecision(text: string, by: 'user' | 'model'): void {
    const t = ledgerEntry(text);
    if (!t || this.state.decisions.some((d) => d.text === t)) return;
    const list = this.state.decisions;
    list.push({ text: t, by, turn: this.state.turn });
    while (list.length > this.limits.decisions) {
      list.shift();
      this.state.rolledUp.decisions++;
    }
    this.changed();
  }

  get files(): readonly LedgerFile[] {
    return this.state.files;
  }

  get plan(): readonly LedgerPlanItem[] {
    return this.state.plan;
  }

  get commands(): readonly LedgerCommand[] {
    return this.state.commands;
  }

  /** Paths changed in this session, most recently changed first. */
  recentlyChanged(): string[] {
    // The list is in order of last action (newest last): reversed, ties keep the most recent first.
    return [...this.state.files]
      .reverse()
      .filter((f) => f.changedTurn !== undefined)
      .sort((a, b) => (b.changedTurn ?? 0) - (a.changedTurn ?? 0))
      .map((f) => f.path);
  }

  get isEmpty(): boolean {
    const s = this.state;
    return (
      !s.files.length && !s.commands.length && !s.errors.length && !s.plan.length && !s.decisions.length && totalRolled(s.rolledUp) === 0
    );
  }

  private changed(): void {
    this.revision++;
  }
}

function totalRolled(r: RolledUp): number {
  return (
    r.files.read +
    r.files.created +
    r.files.modified +
    r.files.deleted +
    r.commands.ok +
    r.commands.failed +
    r.errors +
    r.decisions +
    r.doneItems
  );
}

/**
 * One entry's text as the ledger keeps it: on one line by construction (a file name or a command with
 * line breaks cannot add a line of its own to the block, let alone a forged section), then clipped.
 * New input is compared with entries through it.
 */
export function ledgerEntry(text: string): string {
  const t = singleLine(text.trim());
  return t.length > MAX_ENTRY_CHARS ? `${t.slice(0, MAX_ENTRY_CHARS - 1)}…` : t;
}
