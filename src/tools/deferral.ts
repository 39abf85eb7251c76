/**
 * Tool deferral as an explicit, testable policy. Built-in tools are always sent. External tools
 * (vscode.lm.tools, MCP) are deferred — left out of the request — when their definitions together
 * exceed a share (default 10 %) of the effective window, least recently used first, until the rest
 * fits. Deferred tools are found with `tool_search`, which activates them; a deferred tool called by
 * name is activated too. In a small context window (`setSmallWindow`) every tool is sent with its
 * brief definition and the built-ins that say `deferWhenSmall` are deferred too: at 4k the full set
 * took more than a third of the window. Pure state, no I/O.
 */
import type { ToolDefinition } from '../providers/types';

export const DEFAULT_DEFERRAL_RATIO = 0.1;

export interface DeferralCandidate {
  definition: ToolDefinition;
  builtin: boolean;
  /** The definition sent in a small window (default: `definition`). */
  brief?: ToolDefinition;
  /** A built-in deferred in a small window. */
  deferWhenSmall?: boolean;
}

export interface DeferralSelection {
  /** Built-ins in their given order, then active external tools in their given order. */
  active: ToolDefinition[];
  deferred: ToolDefinition[];
  /** Tokens of the deferred definitions, i.e. what deferral keeps out of the request. */
  savedTokens: number;
  /** The system note for the model, undefined when nothing is deferred. */
  note: string | undefined;
}

export interface DeferralPolicyOptions {
  /** Share of the effective window external tool definitions may take. */
  ratio?: number;
  /** Token cost of one definition. Default: UTF-8 bytes of its JSON / 4, rounded up. */
  countTokens?: (definition: ToolDefinition) => number;
}

/** What `tool_search` needs: search deferred tools and activate the ones it returns. */
export interface ToolSearchPort {
  search(query: string, limit: number): ToolDefinition[];
  activate(name: string): boolean;
  /** Found tools are loaded by reference (`setByReference`): the search's result names them. */
  readonly byReference?: boolean;
}

export function estimateDefinitionTokens(definition: ToolDefinition): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(definition), 'utf8') / 4);
}

export function deferralNote(count: number): string {
  return `[${count} tool${count === 1 ? '' : 's'} deferred to save context. Use tool_search to find them.]`;
}

export class DeferralPolicy implements ToolSearchPort {
  private readonly ratio: number;
  private readonly countTokens: (definition: ToolDefinition) => number;
  private candidates: DeferralCandidate[] = [];
  private readonly costs = new Map<string, number>();
  private readonly lastUsed = new Map<string, number>();
  /** Tools activated during the current turn: kept active whatever the budget. */
  private readonly pinned = new Set<string>();
  private clock = 0;
  private effectiveWindow = 0;
  private small = false;
  private reference = false;
  private cached: DeferralSelection | undefined;

  constructor(options: DeferralPolicyOptions = {}) {
    this.ratio = options.ratio ?? DEFAULT_DEFERRAL_RATIO;
    this.countTokens = options.countTokens ?? estimateDefinitionTokens;
  }

  /** Replaces the known tools; usage history of tools still present is kept. */
  setTools(candidates: DeferralCandidate[]): void {
    this.candidates = [...candidates];
    this.recost();
  }

  /** A small context window: brief definitions, and the built-ins that say so are deferred. */
  setSmallWindow(small: boolean): void {
    if (small === this.small) return;
    this.small = small;
    this.recost();
  }

  private recost(): void {
    this.costs.clear();
    for (const c of this.candidates) this.costs.set(c.definition.name, this.countTokens(this.sent(c)));
    this.cached = undefined;
  }

  /** The definition a candidate is sent with now. */
  private sent(c: DeferralCandidate): ToolDefinition {
    return this.small ? (c.brief ?? c.definition) : c.definition;
  }

  /**
   * The model loads deferred tools by reference (Anthropic `defer_loading` + `tool_reference`): an
   * activation no longer moves a tool into the request's tool list, and use no longer reorders it, so the
   * list (the front of the cached prefix) stays the same while `tool_search` results load the tools.
   */
  setByReference(on: boolean): void {
    if (on === this.reference) return;
    this.reference = on;
    this.pinned.clear();
    this.cached = undefined;
  }

  get byReference(): boolean {
    return this.reference;
  }

  setEffectiveWindow(tokens: number): void {
    if (tokens !== this.effectiveWindow) {
      this.effectiveWindow = tokens;
      this.cached = undefined;
    }
  }

  /** Records a call, making the tool the most recently used. */
  recordUse(name: string): void {
    this.lastUsed.set(name, ++this.clock);
    // By reference, use is remembered for the next time the list is chosen (new tools, another window), not now.
    if (!this.reference) this.cached = undefined;
  }

  /**
   * Makes a known tool active for the rest of the turn (and most recently used). Returns false for
   * an unknown name.
   */
  activate(name: string): boolean {
    if (!this.costs.has(name)) return false;
    if (!this.reference) this.pinned.add(name);
    this.recordUse(name);
    return true;
  }

  /** Ends the current turn's activations; LRU history stays. Call at the start of each turn. */
  releasePins(): void {
    if (this.pinned.size) {
      this.pinned.clear();
      this.cached = undefined;
    }
  }

  costOf(name: string): number | undefined {
    return this.costs.get(name);
  }

  select(): DeferralSelection {
    if (this.cached) return this.cached;
    const external = this.candidates.filter((c) => !c.builtin);
    const budget = Math.floor(this.ratio * this.effectiveWindow);
    let total = external.reduce((sum, c) => sum + this.cost(c), 0);
    const deferredNames = new Set<string>();
    if (total > budget) {
      const order = external
        .filter((c) => !this.pinned.has(c.definition.name))
        .sort((a, b) => this.used(a) - this.used(b) || this.cost(b) - this.cost(a) || (a.definition.name < b.definition.name ? -1 : 1));
      for (const c of order) {
        if (total <= budget) break;
        deferredNames.add(c.definition.name);
        total -= this.cost(c);
      }
    }
    const active: ToolDefinition[] = [];
    const deferred: ToolDefinition[] = [];
    let savedTokens = 0;
    for (const c of this.candidates.filter((x) => x.builtin)) {
      if (this.small && c.deferWhenSmall && !this.pinned.has(c.definition.name)) {
        deferred.push(this.sent(c));
        savedTokens += this.cost(c);
      } else active.push(this.sent(c));
    }
    for (const c of external) {
      if (deferredNames.has(c.definition.name)) {
        deferred.push(this.sent(c));
        savedTokens += this.cost(c);
      } else {
        active.push(this.sent(c));
      }
    }
    this.cached = { active, deferred, savedTokens, note: deferred.length ? deferralNote(deferred.length) : undefined };
    return this.cached;
  }

  isDeferred(name: string): boolean {
    return this.select().deferred.some((d) => d.name === name);
  }

  note(): string | undefined {
    return this.select().note;
  }

  get savedTokens(): number {
    return this.select().savedTokens;
  }

  /**
   * Deferred tools matching `query`, best first: words of the query are looked for in the name
   * (strongest), the description and the input field names. An exact name always matches.
   */
  search(query: string, limit = 5): ToolDefinition[] {
    const words = query
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 1 || /\p{N}/u.test(w));
    const q = query.trim().toLowerCase();
    const scored: Array<{ def: ToolDefinition; score: number }> = [];
    for (const def of this.select().deferred) {
      const name = def.name.toLowerCase();
      const nameWords = name.split(/[^\p{L}\p{N}]+/u);
      const description = def.description.toLowerCase();
      const fields = Object.keys((def.inputSchema.properties as Record<string, unknown> | undefined) ?? {})
        .join(' ')
        .toLowerCase();
      let score = name === q ? 100 : 0;
      for (const w of words) {
        if (nameWords.includes(w)) score += 10;
        else if (name.includes(w)) score += 6;
        if (description.includes(w)) score += 3;
        if (fields.includes(w)) score += 1;
      }
      if (score > 0) scored.push({ def, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.def.name < b.def.name ? -1 : 1));
    return scored.slice(0, Math.max(1, limit)).map((s) => s.def);
  }

  private cost(c: DeferralCandidate): number {
    return this.costs.get(c.definition.name) ?? 0;
  }

  private used(c: DeferralCandidate): number {
    return this.lastUsed.get(c.definition.name) ?? 0;
  }
}
