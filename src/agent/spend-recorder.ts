/**
 * Keeps what a session spent up to date from its agent events: every model request's usage (answers
 * and in-turn compaction summaries) at its model's prices, saved with the session at the end of each
 * turn. A resumed session starts from its stored spend, so the sum continues. Plugs into
 * `AgentSession.onDidEvent`; the loop knows nothing about it. The one home of the session's cost.
 */
import { errorMessage } from '../common/errors';
import { cacheFigures, cacheMiss, type CacheFigures, type CacheMiss, type RequestShape } from '../context/cache-truth';
import type { CacheLifetime, CacheRequestRecord } from '../context/cache-lifetime';
import { CostTally, type Prices, type SessionSpend } from '../context/cost';
import type { Usage } from '../providers/types';
import { pricesFor } from '../context/models';
import type { CompactionReport } from '../context/compaction/report';
import type { AgentEvent } from './events';

/** What the panel shows: the running (or last) turn's dollars, the session's spend and the cache's truth. */
export interface SpendState {
  turn: number;
  spend: SessionSpend;
  /** The last request's cache read / write / uncached input, and the lifetime it asked for (absent: the provider's default). */
  lastCache?: CacheFigures & { lifetime?: CacheLifetime };
  /** The caches this session's requests missed (since it was opened), oldest first, each with its reason and cost. */
  misses?: readonly CacheMiss[];
}

/** Misses kept for the details view (the newest). */
const MAX_MISSES = 50;
/** Requests whose times and cache figures the lifetime choice looks back on. */
const MAX_HISTORY = 100;

export interface SpendRecorderOptions {
  /** The stored spend of a resumed session (undefined: nothing recorded yet). */
  seed?: SessionSpend;
  /** The session's model, whose prices a compaction summary is billed at (the summarizer is that model). */
  model: () => string;
  /** Where the spend is saved (the sessions index). May reject; reported through `onError`. */
  save?: (spend: SessionSpend) => Promise<void>;
  /** Must not throw (guarded). */
  onError?: (message: string) => void;
  /** Called after each change. Must not throw (guarded). */
  onChange?: (state: SpendState) => void;
}

export class SpendRecorder {
  private readonly tally: CostTally;
  /** The spend last handed to `save` (undefined after a failed save: the next one tries again). */
  private saved: SessionSpend | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly options: SpendRecorderOptions) {
    this.tally = new CostTally(options.seed);
    this.saved = this.tally.spend;
  }

  /** The previous request, to tell whether the next one read what it left in the cache. */
  private previous: { shape: RequestShape; usage: Usage } | undefined;
  private lastCache: SpendState['lastCache'];
  private misses: CacheMiss[] = [];
  private history: CacheRequestRecord[] = [];

  /** The session's recent requests as the cache saw them (since it was opened), oldest first. */
  cacheHistory(): readonly CacheRequestRecord[] {
    return this.history;
  }

  get state(): SpendState {
    return { turn: this.tally.turn, spend: this.tally.spend, lastCache: this.lastCache, misses: this.misses };
  }

  /** Feed every agent event here, in order. Never throws. */
  readonly handle = (event: AgentEvent): void => {
    if (event.type === 'turn_start') {
      // A retry goes on with the failed turn: its cost so far stays this turn's.
      if (!event.resumed) this.tally.beginTurn();
      this.changed();
    } else if (event.type === 'usage') {
      const prices = pricesFor(event.model);
      this.tally.add(event.usage, prices);
      this.observeCache(event.usage, event.shape, prices);
      this.changed();
    } else if (event.type === 'compaction') {
      this.addCompaction(event.report, false);
    } else if (event.type === 'turn_end') {
      void this.save();
    }
  };

  /** A compaction's summary request (manual ones arrive here, not as events); saved at once outside a turn. */
  addCompaction(report: CompactionReport, save = true): void {
    if (!report.cost) return;
    this.tally.add(report.cost, pricesFor(safe(this.options.model)));
    this.changed();
    if (save) void this.save();
  }

  private observeCache(usage: Usage, shape: RequestShape | undefined, prices: Prices | undefined): void {
    const figures = cacheFigures(usage);
    this.lastCache = shape?.lifetime ? { ...figures, lifetime: shape.lifetime } : figures;
    if (!shape) return;
    if (!usage.estimated) this.history = [...this.history, { at: shape.at, read: figures.read, write: figures.write }].slice(-MAX_HISTORY);
    const miss = cacheMiss(this.previous, { shape, usage }, prices);
    if (miss) this.misses = [...this.misses, miss].slice(-MAX_MISSES);
    this.previous = { shape, usage };
  }

  /** Saves the spend if it changed since the last save; resolves when saved (never rejects). */
  save(): Promise<void> {
    const save = this.options.save;
    const spend = this.tally.spend;
    if (!save || spend === this.saved) return this.saving;
    this.saved = spend;
    this.saving = this.saving.then(async () => {
      try {
        await save(spend);
      } catch (err) {
        if (this.saved === spend) this.saved = undefined;
        guard(() => this.options.onError?.(`What this session spent could not be saved: ${errorMessage(err)}`));
      }
    });
    return this.saving;
  }

  private changed(): void {
    guard(() => this.options.onChange?.(this.state));
  }
}

function safe(model: () => string): string {
  try {
    return model();
  } catch {
    return '';
  }
}

function guard(f: () => void): void {
  try {
    f();
  } catch {
    // A listener must not break the turn.
  }
}
