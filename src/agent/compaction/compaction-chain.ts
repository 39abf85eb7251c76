/**
 * The compaction chain (DESIGN §3, issue 7): the thin I/O around the pure planners in
 * `context/compaction`. One pass runs, each step only while the view is still over its target:
 *   a) clear old tool results (never-offloaded ones are stored first, so `read_result` reaches them);
 *   b) an LLM summary of the turns before a safe cut, recent turns verbatim (skipped when there is no
 *      summarizer, when its request would not fit, or when it fails);
 *   c) the deterministic fallback: drop the oldest turns, keeping the earlier summary, the pins and
 *      every user instruction in a history message — always possible, even with a full window.
 * A loop breaker pauses automatic passes (manual ones always run). Never throws; never modifies its input.
 */
import { complete, type Provider } from '../../providers/provider';
import type { Message, ProviderRequest, Usage } from '../../providers/types';
import type { ResultPort } from '../../tools/ports';
import {
  applyClearPlan,
  buildCachedSummaryRequest,
  buildMergeRequest,
  buildSummaryRequest,
  historyMessage,
  historyPartsFor,
  isHistoryMessage,
  parseHistoryMessage,
  planClearToolResults,
  planSummary,
  resultText,
} from '../../context/compaction';
import { byteEstimate } from '../../context/utf8';
import type { CompactHook, CompactInput } from '../context-gate';
import { BackgroundSummary, type SummaryOutcome } from './background-summary';
import { summarizeInChunks } from './chunked-summary';
import { dropWithHistory } from './drop-with-history';
import { LoopBreaker, type PauseState } from './loop-breaker';

export interface CompactionChainOptions {
  /** The summarizer (step b). Without one the chain goes from step a to step c. */
  summarizer?: Provider;
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
  /** Step a keeps the newest results: at most this many (default 3)… */
  keepRecentResults?: number;
  /** …and at most this share of the target in tokens (default 0.25). */
  keepResultsShare?: number;
  /** Reference 000's rolling window: at most N recent turns stay raw after a summary (default 0: as many as fit). */
  keepTurns?: number;
  /** Reference 000: every M-th summary is rebuilt from the originals via `history` (default 10; 0 = never). */
  resummarizeEvery?: number;
  /** Output budget of a summary (default 2000 tokens). */
  summaryMaxTokens?: number;
  /** Share of the target the carried user instructions may take (default 0.3). */
  instructionsShare?: number;
  /** Input tokens the summarizer accepts. Default: the pass's effective window. */
  summarizerWindow?: number;
  /** Used when a pass is given no effective window. */
  effectiveWindow?: number;
  /** Summary passes already done in this session (resume), for `resummarizeEvery`. */
  summaryCount?: number;
  /** Called with the new count after each summary pass (persist it for `summaryCount`). Must not throw (guarded). */
  onSummaryCount?: (count: number) => void;
  /** Loop breaker: minimum share of the window an automatic pass must free (default 0.05). */
  minFreedShare?: number;
  /** Loop breaker: failed automatic passes in a row before pausing (default 3). */
  maxFailures?: number;
  /** Called after every pass that produced a compacted view. Must not throw (guarded). */
  onReport?: (result: ChainResult) => void;
  /** Called when the loop breaker pauses automatic compaction. Must not throw (guarded). */
  onPause?: (state: PauseState) => void;
  now?: () => number;
}

/** What one pass did. Token figures are of the messages only (system and tools are the gate's). */
export interface ChainResult {
  messages: Message[];
  /** In order: `clear_tool_results`, `summary` | `resummarize`, `drop_oldest_turns`. */
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
  /** Why a step was skipped or failed (summary failure, results that could not be stored…). */
  notes: string[];
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
}

const ZERO: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export function createCompactionChain(options: CompactionChainOptions): CompactionChain {
  const now = options.now ?? Date.now;
  const breaker = new LoopBreaker({ minFreedShare: options.minFreedShare, maxFailures: options.maxFailures, now });
  let summaryCount = options.summaryCount ?? 0;
  const background = new BackgroundSummary();
  const instructionsShare = options.instructionsShare ?? 0.3;
  const storedRefs = new WeakMap<Message, string>();

  function countSummary(): void {
    summaryCount++;
    guard(() => options.onSummaryCount?.(summaryCount));
  }

  async function run(input: CompactInput, signal: AbortSignal): Promise<ChainResult | undefined> {
    const manual = input.trigger === 'manual';
    if ((breaker.paused && !manual && !input.force) || signal.aborted) return undefined;
    const started = now();
    let result: ChainResult | undefined;
    try {
      result = await pass(input, signal, started);
    } catch {
      result = undefined;
    }
    const tripped = breaker.record({
      manual,
      produced: result !== undefined,
      reachedTarget: result?.reachedTarget ?? false,
      freedShare: result ? result.freedShare : 0,
    });
    if (result) guard(() => options.onReport?.(result));
    if (tripped) guard(() => options.onPause?.(tripped));
    return result;
  }

  async function pass(input: CompactInput, signal: AbortSignal, started: number): Promise<ChainResult | undefined> {
    const tokensOf = (m: Message) => Math.max(0, input.tokensOf(m) || 0);
    const total = (v: readonly Message[]) => v.reduce((s, m) => s + tokensOf(m), 0);
    const target = Math.max(0, input.targetTokens);
    const original = input.messages;
    const beforeTokens = total(original);
    const strategies: string[] = [];
    const notes: string[] = [];
    const clearedRefIds: string[] = [];
    let cost: Usage = { ...ZERO };
    let summary: string | undefined;
    let view: Message[] = [...original];
    const pins = await readPins(notes);
    const ledger = await carriedBlock(notes, target);

    // a) clear old tool results
    const plan = planClearToolResults(view, {
      keepRecent: options.keepRecentResults ?? 3,
      keepTokens: Math.floor(target * (options.keepResultsShare ?? 0.25)),
      tokensOf,
    });
    if (plan.items.length) {
      const refIds = new Map<number, string>();
      for (const item of plan.items) {
        if (item.refId || item.store === undefined) continue;
        try {
          refIds.set(item.index, await options.results.put({ toolName: item.toolName, toolCallId: item.toolCallId, content: item.store }));
        } catch (err) {
          notes.push(`A "${item.toolName}" result could not be stored, so it was kept: ${String((err as Error)?.message ?? err)}`);
        }
      }
      const cleared = applyClearPlan(view, plan, refIds);
      if (cleared.cleared > 0) {
        view = cleared.messages;
        strategies.push('clear_tool_results');
        for (const item of plan.items) {
          const ref = item.refId ?? refIds.get(item.index);
          if (ref) clearedRefIds.push(ref);
        }
      }
    }

    // b) LLM summary
    if (total(view) > target && !signal.aborted) {
      const s = await summarize(view, input, { pins, ledger }, notes, signal, tokensOf, clearedRefIds);
      if (s) {
        view = s.messages;
        summary = s.summary;
        cost = s.cost;
        strategies.push(s.strategy);
      }
    }

    // c) deterministic fallback
    if (total(view) > target && !signal.aborted) {
      const dropped = dropWithHistory(view, { pins, target, tokensOf, instructionsShare, now, ledger });
      if (dropped) {
        await ensureStored(dropped.gone, notes, clearedRefIds);
        view = dropped.messages;
        strategies.push('drop_oldest_turns');
      }
    }

    if (strategies.length === 0) return undefined;
    view = withCurrentLedger(view, ledger);
    const afterTokens = total(view);
    const window = input.effectiveWindow ?? options.effectiveWindow ?? Math.max(1, beforeTokens);
    return {
      messages: view,
      strategies,
      summary,
      trigger: input.trigger,
      beforeTokens,
      afterTokens,
      beforeMessages: original.length,
      afterMessages: view.length,
      durationMs: now() - started,
      cost,
      targetTokens: target,
      reachedTarget: afterTokens <= target,
      freedShare: (beforeTokens - afterTokens) / Math.max(1, window),
      clearedRefIds,
      notes,
    };
  }

  /**
   * Copies of `messages` where every tool result has a ref id: results never stored are stored now,
   * so whatever leaves the view stays retrievable with read_result. A failed store is noted.
   */
  async function ensureStored(messages: readonly Message[], notes: string[], refs: string[]): Promise<Message[]> {
    const out: Message[] = [];
    for (const m of messages) {
      if (m.role !== 'toolResult' || m.refId) {
        out.push(m);
        continue;
      }
      try {
        // A result stored by an earlier step (or a failed summary attempt) is not stored twice.
        const refId =
          storedRefs.get(m) ?? (await options.results.put({ toolName: m.toolName, toolCallId: m.toolCallId, content: resultText(m) }));
        storedRefs.set(m, refId);
        if (!refs.includes(refId)) refs.push(refId);
        out.push({ ...m, refId });
      } catch (err) {
        notes.push(`A "${m.toolName}" result could not be stored: ${String((err as Error)?.message ?? err)}`);
        out.push(m);
      }
    }
    return out;
  }

  async function readPins(notes: string[]): Promise<string[]> {
    try {
      return [...((await options.pins?.()) ?? [])].filter((p) => typeof p === 'string' && p.trim() !== '');
    } catch (err) {
      notes.push(`Pins could not be read: ${String((err as Error)?.message ?? err)}`);
      return [];
    }
  }

  /** The ledger block followed by the re-hydrated files, as carried in the history message. */
  async function carriedBlock(notes: string[], target: number): Promise<string | undefined> {
    const ledger = readLedger(notes);
    let files: string | undefined;
    try {
      files = await options.rehydrate?.(Math.floor(target * (options.rehydrateShare ?? 0.1)));
    } catch (err) {
      notes.push(`The changed files could not be re-read: ${String((err as Error)?.message ?? err)}`);
    }
    return [ledger, files?.trim()].filter((x) => x).join('\n\n') || undefined;
  }

  function readLedger(notes: string[]): string | undefined {
    try {
      return options.ledger?.()?.trim() || undefined;
    } catch (err) {
      notes.push(`The work ledger could not be read: ${String((err as Error)?.message ?? err)}`);
      return undefined;
    }
  }

  function reserveFor(target: number, pins: readonly string[], ledger?: string): number {
    const pinTokens = pins.reduce((s, p) => s + byteEstimate(Buffer.byteLength(p, 'utf8')) + 4, 0);
    const ledgerTokens = ledger ? byteEstimate(Buffer.byteLength(ledger, 'utf8')) + 8 : 0;
    return (options.summaryMaxTokens ?? 2000) + pinTokens + ledgerTokens + Math.floor(target * instructionsShare) + 100;
  }

  function summarizerLimit(input: Pick<CompactInput, 'effectiveWindow'>): number {
    return options.summarizerWindow ?? input.effectiveWindow ?? options.effectiveWindow ?? Infinity;
  }

  function requestTokens(req: ProviderRequest, tokensOf: (m: Message) => number): number {
    return (
      req.messages.reduce((s, m) => s + tokensOf(m), 0) + byteEstimate(Buffer.byteLength(req.system.map((x) => x.text).join('\n'), 'utf8'))
    );
  }

  /** Asks the summarizer; undefined (with a note) when it fails or returns nothing. */
  async function ask(request: ProviderRequest, notes: string[], signal: AbortSignal): Promise<{ text: string; usage: Usage } | undefined> {
    const reply = await complete(options.summarizer!, request, signal);
    const text = reply.content
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join('')
      .trim();
    if (reply.stopReason === 'error' || reply.stopReason === 'aborted' || !text) {
      notes.push(
        `The summary failed (${reply.error?.kind ?? (text ? reply.stopReason : 'empty')}${reply.error ? `: ${reply.error.message}` : ''}).`,
      );
      return undefined;
    }
    return { text, usage: reply.usage };
  }

  /** Summarizes `head` (updating `previousSummary`): stores its results first, clips to fit the summarizer. */
  async function summarizeHead(
    head: readonly Message[],
    previousSummary: string | undefined,
    ctx: { focus?: string; limit: number; pins: string[]; tokensOf: (m: Message) => number },
    notes: string[],
    signal: AbortSignal,
  ): Promise<SummaryOutcome | undefined> {
    // What is summarized away must stay retrievable: store it first, and the summarizer sees the ref ids.
    const refs: string[] = [];
    const stored = await ensureStored(head, notes, refs);
    const base = {
      model: options.summarizerModel ?? 'default',
      focus: ctx.focus,
      pins: ctx.pins,
      maxOutputTokens: options.summaryMaxTokens ?? 2000,
      previousSummary,
    };
    for (const clip of [{}, { toolChars: 300, assistantChars: 1500 }, { toolChars: 100, assistantChars: 400 }]) {
      const request = buildSummaryRequest(stored, { ...base, ...clip });
      if (requestTokens(request, ctx.tokensOf) > ctx.limit) continue;
      const r = await ask(request, notes, signal);
      return r ? { summary: r.text, cost: r.usage, refs } : undefined;
    }
    // Too long for one request: summarize in chunks and merge them (only if that fails are turns dropped).
    const chunked = await summarizeInChunks(stored, previousSummary, {
      limit: ctx.limit,
      requestTokens: (req) => requestTokens(req, ctx.tokensOf),
      chunkRequest: (messages) =>
        buildSummaryRequest(messages, { ...base, previousSummary: undefined, toolChars: 100, assistantChars: 400 }),
      mergeRequest: (parts) => buildMergeRequest(parts, base),
      ask: (req) => ask(req, notes, signal),
    });
    if (chunked) {
      notes.push(
        `The history did not fit the summarizer's window: summarized in ${chunked.chunks} chunks and merged (${chunked.requests} requests).`,
      );
      return { summary: chunked.summary, cost: chunked.cost, refs };
    }
    notes.push("The summary request would not fit the summarizer's window, even in chunks; older turns were dropped instead.");
    return undefined;
  }

  async function summarize(
    view: Message[],
    input: CompactInput,
    carried: { pins: string[]; ledger?: string },
    notes: string[],
    signal: AbortSignal,
    tokensOf: (m: Message) => number,
    refs: string[],
  ): Promise<{ messages: Message[]; summary: string; cost: Usage; strategy: string } | undefined> {
    if (!options.summarizer) return undefined;
    const { pins, ledger } = carried;
    const target = input.targetTokens;
    const total = (v: readonly Message[]) => v.reduce((s, m) => s + tokensOf(m), 0);
    let cost: Usage = { ...ZERO };

    // A summary prepared in the background is used when it still fits the history (never for a focused pass).
    const prepared = input.focus ? (background.discard(), undefined) : await background.take(view);
    if (prepared === 'stale') notes.push('A summary prepared in the background was discarded: the history changed under it.');
    else if (prepared) {
      countSummary();
      refs.push(...prepared.refs);
      cost = addUsage(cost, prepared.cost);
      const tail = view.slice(prepared.cut);
      const gone = view.slice(0, prepared.cut);
      const messages = [
        historyMessage(
          historyPartsFor(gone, tail, { pins, target, summary: prepared.summary, tokensOf, instructionsShare, ledger }),
          gone[gone.length - 1]?.timestamp ?? now(),
        ),
        ...tail,
      ];
      notes.push('Used the summary prepared in the background.');
      if (total(messages) <= target) return { messages, summary: prepared.summary, cost, strategy: 'summary' };
      view = messages; // not enough: summarize further on top of it
    }

    const plan = planSummary(view, {
      targetTokens: target,
      tokensOf,
      reserveTokens: reserveFor(target, pins, ledger),
      keepTurns: options.keepTurns,
    });
    if (!plan) {
      notes.push('Nothing before a safe cut to summarize.');
      return undefined;
    }
    const limit = summarizerLimit(input);
    let outcome: SummaryOutcome | undefined;
    let strategy = 'summary';
    const every = options.resummarizeEvery ?? 10;
    if (every > 0 && options.history && (summaryCount + 1) % every === 0) {
      // Reference 000: rebuild from the originals now and then, so summaries of summaries do not drift.
      try {
        const full = await options.history();
        const keptCount = view.length - plan.cut;
        const originals = full.slice(0, Math.max(0, full.length - keptCount)).filter((m) => !isHistoryMessage(m));
        const request = buildSummaryRequest(originals, {
          model: options.summarizerModel ?? 'default',
          focus: input.focus,
          pins,
          maxOutputTokens: options.summaryMaxTokens ?? 2000,
        });
        if (originals.length && requestTokens(request, tokensOf) <= limit) {
          const r = await ask(request, notes, signal);
          if (r) {
            const stored: string[] = [];
            await ensureStored(plan.head, notes, stored); // what leaves the view stays retrievable
            outcome = { summary: r.text, cost: r.usage, refs: stored };
            strategy = 'resummarize';
          }
        }
      } catch (err) {
        notes.push(`The history for re-summarization could not be read: ${String((err as Error)?.message ?? err)}`);
      }
    }
    if (!outcome && input.prefix && (!options.summarizerModel || options.summarizerModel === input.prefix.model)) {
      // Cache-preserving: the agent's own prefix (system, tools, the conversation as sent) plus one
      // instruction, so the provider's prompt cache serves most of the input.
      const request = buildCachedSummaryRequest(input.messages, input.prefix, {
        keptFrom: plan.tail[0],
        focus: input.focus,
        pins,
        maxOutputTokens: options.summaryMaxTokens ?? 2000,
      });
      const prefixTokens = byteEstimate(Buffer.byteLength(JSON.stringify(request.tools), 'utf8'));
      // It may use the whole window but its own output and a 2 % margin (not only the agent's effective window).
      const window = input.prefix.contextWindow;
      const cachedLimit = window
        ? Math.min(options.summarizerWindow ?? Infinity, window - request.maxOutputTokens - Math.ceil(window * 0.02))
        : limit;
      if (requestTokens(request, tokensOf) + prefixTokens <= cachedLimit) {
        const r = await ask(request, notes, signal);
        if (r) {
          const stored: string[] = [];
          await ensureStored(plan.head, notes, stored); // what leaves the view stays retrievable
          outcome = { summary: r.text, cost: r.usage, refs: stored };
        }
      }
    }
    outcome ??= await summarizeHead(plan.head, plan.previous?.summary, { focus: input.focus, limit, pins, tokensOf }, notes, signal);
    if (!outcome) return undefined;
    countSummary();
    refs.push(...outcome.refs);
    const gone = [...view.slice(0, plan.cut)];
    const parts = historyPartsFor(gone, plan.tail, { pins, target, summary: outcome.summary, tokensOf, instructionsShare, ledger });
    const stamp = plan.head[plan.head.length - 1]?.timestamp ?? now();
    return {
      messages: [historyMessage(parts, stamp), ...plan.tail],
      summary: outcome.summary,
      cost: addUsage(cost, outcome.cost),
      strategy,
    };
  }

  /**
   * Starts preparing a summary in the background (from the `background` threshold): of the turns a
   * compaction to `input.targetTokens` would summarize, when the cut falls at a turn start.
   */
  function prepare(input: CompactInput): void {
    try {
      if (!options.summarizer || breaker.paused || input.messages.length === 0) return;
      const tokensOf = (m: Message) => Math.max(0, input.tokensOf(m) || 0);
      const view = input.messages;
      const plan = planSummary(view, {
        targetTokens: input.targetTokens,
        tokensOf,
        reserveTokens: reserveFor(input.targetTokens, [], readLedger([])),
        keepTurns: options.keepTurns,
      });
      if (!plan) return;
      const start = plan.cut - plan.head.length;
      // A cut inside the newest turn moves back to that turn's start: the prepared head must end at a turn.
      const cut = plan.tail[0] === view[plan.cut] ? plan.cut : view.indexOf(plan.tail[0]);
      if (cut <= start) return;
      const limit = summarizerLimit(input);
      background.prepare(view, { start, cut }, async (head, previous, signal) => {
        const pins = await readPins([]);
        return summarizeHead(head, previous, { limit, pins, tokensOf }, [], signal);
      });
    } catch {
      // Preparing is an optimization; the compaction itself still works without it.
    }
  }

  return {
    hook: async (input, signal) => {
      const r = await run(input, signal);
      return r
        ? { messages: r.messages, strategies: r.strategies, summary: r.summary, cost: r.summary !== undefined ? r.cost : undefined }
        : undefined;
    },
    run,
    prepare,
    get preparing() {
      return background.busy;
    },
    discardPrepared: () => background.discard(),
    get paused() {
      return breaker.paused;
    },
    resume: () => breaker.resume(),
  };
}

/** The view with the leading history message (if any) carrying the current ledger block. */
function withCurrentLedger(view: Message[], ledger: string | undefined): Message[] {
  const parts = parseHistoryMessage(view[0]);
  if (!parts || !ledger || parts.ledger === ledger) return view;
  return [historyMessage({ ...parts, ledger }, view[0].timestamp), ...view.slice(1)];
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}

function guard(fn: () => void): void {
  try {
    fn();
  } catch {
    // A listener must not break compaction.
  }
}
