/**
 * The compaction chain's contracts: its options (what a session plugs in), what one pass reports, and
 * the chain object a session keeps. The chain itself is `compaction-chain.ts`; one pass is
 * `compaction-pass.ts`.
 */
import type { NativeCompaction } from '../../context/compaction';
import type { CompactionReceipt } from '../../protocol/view-models';
import type { Provider } from '../../providers/provider';
import type { Message, ToolResultMessage, Usage } from '../../providers/types';
import type { ResultPort } from '../../tools/ports';
import type { CompactHook, CompactInput } from '../compact-hook';
import type { BackgroundSummary } from './background-summary';
import type { PauseState } from './loop-breaker';
import type { ResultArchive } from './result-archive';
import type { Summarizer } from './summarizer';

export interface CompactionChainOptions {
  /** The summarizer (step b). Without one the chain goes from step a to step c. */
  summarizer?: Provider;
  /**
   * The provider's own compaction for the summary step, read at every pass (`nativeCompactionFor`):
   * undefined when the model does not declare it or the user turned it off.
   */
  nativeCompaction?: () => NativeCompaction | undefined;
  /** Model for the summary (`headroom.summarizerModel`, else the session's model). */
  summarizerModel?: string;
  /** Where never-offloaded results are stored before they are cleared (the session's result store). */
  results: Pick<ResultPort, 'put'>;
  /** The session's pins, read at every pass; always kept verbatim. */
  pins?: () => readonly string[] | Promise<readonly string[]>;
  /**
   * The work ledger's block, read at every pass: carried verbatim in the history message (and refreshed
   * there by every pass), so files, commands, errors and the plan never depend on the summary.
   */
  ledger?: () => string | undefined;
  /**
   * Re-hydration: the current content (or outline) of the files changed most recently, within the
   * given token budget, carried with the ledger after every pass. May reject (then left out).
   */
  rehydrate?: (budgetTokens: number) => Promise<string | undefined>;
  /** Share of the pass's target the re-hydrated files may take (default 0.1). */
  rehydrateShare?: number;
  /**
   * The full history since the last clear, oldest first, ending with the view's newest messages (the
   * transcript). Used for the periodic re-summarization from the originals; optional.
   */
  history?: () => Promise<readonly Message[]>;
  /** Step a keeps the newest results: at most this many (default `KEEP_RECENT_RESULTS`)… */
  keepRecentResults?: number;
  /** …and at most this share of the target in tokens (default 0.25). */
  keepResultsShare?: number;
  /** Reference 000's rolling window: at most N recent turns stay raw after a summary (default 0: as many as fit). */
  keepTurns?: number;
  /** Reference 000: every M-th summary is rebuilt from the originals via `history` (default 10; 0 = never). */
  resummarizeEvery?: number;
  /** Output budget of a summary (default 2000 tokens; at most a quarter of the model's window). */
  summaryMaxTokens?: number;
  /** Share of the target the carried user instructions may take (default 0.3). */
  instructionsShare?: number;
  /**
   * Input tokens a separate summarizer model accepts (its own limit, used as is). Default: what fits the
   * agent model's window once the summary's output is reserved, and at most its effective window.
   */
  summarizerWindow?: number;
  /** Used when a pass is given no effective window. */
  effectiveWindow?: number;
  /** Summary passes already done in this session (resume), for `resummarizeEvery`. */
  summaryCount?: number;
  /** Called with the new count after each summary pass (persist it for `summaryCount`). Exceptions from it are swallowed. */
  onSummaryCount?: (count: number) => void;
  /** Loop breaker: minimum share of the window an automatic pass must free (default 0.05). */
  minFreedShare?: number;
  /** Loop breaker: failed automatic passes in a row before pausing (default 3). */
  maxFailures?: number;
  /** Called after every pass that produced a compacted view (with the pass's input). Exceptions from it are swallowed. */
  onReport?: (result: ChainResult, input: CompactInput) => void;
  /** Called when the loop breaker pauses automatic compaction. Exceptions from it are swallowed. */
  onPause?: (state: PauseState) => void;
  now?: () => number;
}

/** What one pass did. Token figures are of the messages only (system and tools are the gate's). */
export interface ChainResult {
  messages: Message[];
  /** In order: `clear_tool_results`, `summary` | `resummarize` | `native_summary`, `drop_oldest_turns`. */
  strategies: string[];
  /** The model summary now at the front of the view (absent when no summary was made in this pass). */
  summary?: string;
  trigger: CompactInput['trigger'];
  beforeTokens: number;
  afterTokens: number;
  beforeMessages: number;
  afterMessages: number;
  durationMs: number;
  /** Summarizer usage (zeros when no model was called). */
  cost: Usage;
  targetTokens: number;
  reachedTarget: boolean;
  /** Tokens freed / effective window. */
  freedShare: number;
  /** Ref ids of the results this pass cleared or stored before removing them (all retrievable with read_result). */
  clearedRefIds: string[];
  /** The input's results without a ref id that this pass stored, as stored (with their ref ids). */
  storedResults?: ToolResultMessage[];
  /** Why a step was skipped or failed (summary failure, results that could not be stored…). */
  notes: string[];
  /** Which specifics of what left the view the compacted view still carries (`receipt.ts`). */
  receipt?: CompactionReceipt;
}

export interface CompactionChain {
  /** For `createContextGate({ compact: chain.hook })`. Resolves undefined when paused (automatic passes) or when nothing changed. */
  readonly hook: CompactHook;
  /** One pass with the full result (manual `/compact`: trigger 'manual'). Never rejects. */
  readonly run: (input: CompactInput, signal: AbortSignal) => Promise<ChainResult | undefined>;
  /**
   * Starts preparing a summary in the background (for `createContextGate({ prepare })`, called from the
   * `background` threshold). The next pass uses it if the history did not change under it. Never throws.
   */
  readonly prepare: (input: CompactInput) => void;
  /** True while a background summary is being prepared or waits to be used. */
  readonly preparing: boolean;
  /** Drops a prepared summary (session switch, clear, undo). */
  readonly discardPrepared: () => void;
  /** Set while automatic compaction is paused by the loop breaker. */
  readonly paused: PauseState | undefined;
  /** Resumes automatic compaction (also done by a manual pass that reaches its target). */
  readonly resume: () => void;
  /** Resumes automatic compaction when the cause of its pause is gone (`LoopBreaker.liftIf`); true when it did. */
  readonly liftPause: (now: { effectiveWindow: number; ratio: number; quietBelow: number }) => boolean;
}

/** What the chain lends each pass: its options and the state that outlives one pass. */
export interface ChainServices {
  readonly options: CompactionChainOptions;
  readonly archive: ResultArchive;
  readonly background: BackgroundSummary;
  /**
   * The summarizer for a pass over `input` (its output budget and input limit fitted to the model's
   * window); undefined without `options.summarizer`: the chain then goes from step a to step c.
   */
  summarizerFor(input: CompactInput): Summarizer | undefined;
  readonly now: () => number;
  /** Summary passes made so far in this session. */
  readonly summaryCount: number;
  /** Counts one more summary pass and tells `options.onSummaryCount`. Never throws. */
  countSummary(): void;
  /** Whether the next summary is rebuilt from the originals (every `resummarizeEvery`-th, with `history`). */
  resummarizeDue(): boolean;
}

/** What one pass works with, fixed when it starts. */
export interface PassScope {
  readonly input: CompactInput;
  readonly signal: AbortSignal;
  /** Tokens the compacted messages should fit in (≥ 0). */
  readonly target: number;
  /** The input's counter, never negative or NaN. */
  readonly tokensOf: (message: Message) => number;
  /** The counter for summary requests (`input.estimateOf`, else `tokensOf`), never negative or NaN. */
  readonly requestTokensOf: (message: Message) => number;
  /** The session's pins, read once at the start of the pass. */
  readonly pins: string[];
  /** The work ledger block and re-hydrated files carried in the history message. */
  readonly ledger: string | undefined;
}

/** Share of a pass's target the carried user instructions may take, unless the options say otherwise. */
export const DEFAULT_INSTRUCTIONS_SHARE = 0.3;
