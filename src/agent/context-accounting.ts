/**
 * The context's accounting, per component and per content class, with the provider-confirmed base:
 * what the gate projects and the meter shows. Each system section and message is counted
 * where it lives (context/prompt-components); every count is calibrated by the factor of its content
 * class (`Calibration.factorFor`: a factor learned on prose never lowers code, CJK or base64); after a response the provider's figure for that request is the base and only what was added
 * since is estimated, with a band from the errors observed so far. Pure (no vscode); never throws if
 * the ledger does not.
 */
import { COMPONENT_NAMES, type BudgetComponents } from '../context/budget';
import type { Calibration, TokensByClass } from '../context/calibration';
import { baseApplies, scaleToTotal, type EstimateState } from '../context/confirmed-base';
import { dominantClass, isRepetitive, messageSampleText, type BandClass, type ClassTokens } from '../context/estimate-band';
import {
  combineCounts,
  estimateMessage,
  estimateText,
  MESSAGE_OVERHEAD,
  TOOL_RESULT_OVERHEAD,
  toolDefinitionParts,
  type MessageCount,
} from '../context/message-tokens';
import type { ModelLimits, TokenizerFamily } from '../context/models';
import { messageComponent, sectionComponent, type MessageComponent, type SectionComponent } from '../context/prompt-components';
import type { TokenLedger } from '../context/token-ledger';
import type { ReportVerdict } from '../context/usage-evidence';
import type { Message, ProviderRequest, SystemSection, ToolDefinition, Usage } from '../providers/types';
import { judgeUsage, type GateReports } from './usage-judging';

export type { GateReports, UsageDoubt } from './usage-judging';

/** One system section (or all tool definitions) as counted: where it belongs and how it is calibrated. */
interface FixedPart {
  component: SectionComponent | 'tools';
  /** Its raw count (with its content class). */
  count: MessageCount;
}

/** A request's components with the confirmed base applied. */
export interface Accounting {
  components: BudgetComponents;
  /** Provider-reported tokens the figure rests on (absent: all estimated). */
  confirmed?: number;
  /** Tokens estimated on top of the confirmed base (all of it without one; negative when something was dropped). */
  estimated: number;
  /** The estimated part's tokens by content class (for the error band). */
  classes: ClassTokens;
}

export const sumOf = (c: BudgetComponents): number => COMPONENT_NAMES.reduce((s, n) => s + c[n], 0);
const add = (classes: ClassTokens, cls: BandClass, tokens: number) => (classes[cls] = (classes[cls] ?? 0) + Math.max(0, tokens));

export interface ContextAccounting {
  /** Calibrated tokens of one message (memoized counts; the factor of its content class). */
  tokensOf: (message: Message) => number;
  /** A tool result's tokens as the request will count them until its exact count arrives (safe estimate, its class's factor). */
  resultTokens: (text: string, toolName: string) => number;
  /**
   * The calibrated safe estimate of a message that is not part of the conversation (a summary request,
   * megabytes of transcript): nothing is memoized and no tokenizer count is started for it.
   */
  estimateOf: (message: Message) => number;
  /** Resolves once the system sections and tool definitions have their tokenizer counts (never rejects). */
  countFixedExactly: (system: readonly SystemSection[], tools: readonly ToolDefinition[]) => Promise<unknown>;
  /** Calibrated components of a request, each measured where it lives (no confirmed base). */
  components: (messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]) => BudgetComponents;
  /** The components with the confirmed base applied, and how much of them is estimated. */
  account: (messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]) => Accounting;
  /**
   * Called with the provider's usage for a request that completed: unless the figure is in doubt
   * (`UsageEvidence`), records the error of what was shown (band), makes the request the confirmed
   * base and calibrates the dominant class. Returns the verdict on the figure.
   */
  learn: (request: ProviderRequest, usage: Usage) => ReportVerdict | undefined;
}

export function createContextAccounting(deps: {
  limits: ModelLimits;
  ledger: TokenLedger;
  calibration: Calibration;
  estimates: EstimateState;
  /** Whether a reported figure may be used; without it every figure is. */
  reports?: GateReports;
}): ContextAccounting {
  const { limits, ledger, calibration, estimates } = deps;
  const family = limits.family;

  const scaled = (c: Pick<MessageCount, 'tokens' | 'contentClass' | 'bound'>) => calibrated(calibration, limits.model, c);
  const countOf = (m: Message) => ledger.count(m, family);
  const tokensOf = (m: Message) => scaled(countOf(m));
  const estimateOf = (m: Message) => scaled(estimateMessage(m, family, ''));
  const messageBand = messageBands(countOf);
  const { systemRaw, toolsParts, exact: countFixedExactly } = fixedPartCounts(ledger, family);

  /** Calibrated system sections and tool definitions (`fixed` is the part of them the messages do not hold). */
  function fixedParts(
    system: readonly SystemSection[],
    tools: readonly ToolDefinition[],
  ): Pick<BudgetComponents, SectionComponent | 'tools'> {
    const out = { system: 0, rules: 0, deferredTools: 0, tools: 0 };
    for (const p of [...systemRaw(system), ...toolsParts(tools)]) out[p.component] += scaled(p.count);
    return out;
  }

  /** Calibrated components of a request, each measured where it lives. */
  function components(messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]): BudgetComponents {
    const inMessages: Record<MessageComponent, number> = { summary: 0, messages: 0, toolResults: 0 };
    for (const m of messages) inMessages[messageComponent(m)] += tokensOf(m);
    return { ...fixedParts(system, tools), ...inMessages };
  }

  const noteTokens = (note: string | undefined) => (note ? scaled(ledger.countText(note, family)) : 0);
  /** Tokens of a note that left with its request: its exact BPE count; nothing for an estimate or Claude's scaled counts. */
  const leftNote = (note: string | undefined) => {
    const c = note && family !== 'claude' ? ledger.countText(note, family) : undefined;
    return c?.exact ? c.tokens : 0;
  };

  /**
   * The request's components with the confirmed base applied: when the view still holds the last
   * reported request, that request counts as the provider said and only what was added since is
   * estimated (the components are scaled to the total so the breakdown adds up to it).
   */
  function account(messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]): Accounting {
    const c = components(messages, system, tools);
    const classes: ClassTokens = {};
    const add = (cls: BandClass, tokens: number) => (classes[cls] = (classes[cls] ?? 0) + Math.max(0, tokens));
    const base = estimates.base;
    if (baseApplies(base, messages, limits.model)) {
      // The messages of the base are counted by the provider; new messages and changed fixed parts are not.
      let delta = 0;
      for (let i = base.messages.length; i < messages.length; i++) {
        const t = tokensOf(messages[i]);
        add(messageBand(messages[i]), t);
        delta += t;
      }
      const now = fixedParts(system, tools);
      const then = fixedParts(base.system, base.tools);
      // Only growth is added: what left the fixed parts since (tools dropped for a final turn) is not
      // subtracted, because our estimate of it may exceed what the provider counted for it and the
      // figure must not fall below the truth. The base's note left too: its exact BPE count is taken
      // off (a note is plain English, which no tokenizer Headroom meets counts in fewer tokens, and
      // its message framing stays counted), so a small window's meter does not carry it from turn to turn.
      const prose = Math.max(0, now.system + now.rules + now.deferredTools - (then.system + then.rules + then.deferredTools));
      const toolChange = Math.max(0, now.tools - then.tools);
      add('prose', prose);
      add('tools', toolChange);
      delta += prose + toolChange - leftNote(base.note);
      return { components: scaleToTotal(c, base.reported + delta), confirmed: base.reported, estimated: delta, classes };
    }
    for (const m of messages) add(messageBand(m), tokensOf(m));
    for (const p of [...systemRaw(system), ...toolsParts(tools)]) add(fixedBand(p), scaled(p.count));
    return { components: c, estimated: sumOf(c), classes };
  }

  function learn(request: ProviderRequest, u: Usage): ReportVerdict | undefined {
    // Everything the request held, raw (per content class: calibration's input).
    const raw = [...systemRaw(request.system), ...toolsParts(request.tools)].map((p) => p.count);
    for (const m of request.messages) raw.push(countOf(m));
    if (request.trailingNote) raw.push(ledger.countText(request.trailingNote, family));
    const verdict = judgeUsage({ limits, ledger, reports: deps.reports, components, noteTokens, tokensOf }, request, u, raw);
    if (verdict?.confirm) {
      const reported = verdict.total;
      // What the meter would have shown for this exact request, before learning from it.
      const a = account(request.messages, request.system, request.tools);
      const note = noteTokens(request.trailingNote);
      add(a.classes, 'prose', note);
      const shownEstimate = a.estimated + note;
      const actual = reported - (sumOf(a.components) + note - shownEstimate);
      estimates.band.observe(limits.model, dominantClass(a.classes), shownEstimate, actual);
      estimates.base = {
        model: limits.model,
        messages: request.messages,
        system: request.system,
        tools: request.tools,
        note: request.trailingNote,
        reported,
      };
    }
    // Calibration per content class, on the raw counts of everything the request held.
    if (verdict?.calibrate) {
      const total = verdict.total;
      calibration.observeClasses(limits.model, tokensByClass(raw), { input: total, cacheRead: 0, cacheWrite: 0, output: u.output });
    }
    return verdict;
  }

  const resultTokens = (text: string, toolName: string) => scaled(resultTokenCount(text, toolName, family));

  return { tokensOf, estimateOf, resultTokens, countFixedExactly, components, account, learn };
}

/**
 * A count scaled by the calibration factor of its content class (never by another class's). A learned
 * factor applies to the scale it was learned on (`MessageCount.bound`); an unlearned one (at least 1)
 * to the count as it is.
 */
function calibrated(calibration: Calibration, model: string, c: Pick<MessageCount, 'tokens' | 'contentClass' | 'bound'>): number {
  const learned = c.bound !== undefined && calibration.isCalibrated(model, c.contentClass ?? 'prose');
  return Math.ceil((learned ? c.bound! : c.tokens) * calibration.factorFor(model, c.contentClass));
}

/** A tool result's tokens until its exact count arrives: safe estimates of its text and tool name, with their framing. */
function resultTokenCount(
  text: string,
  toolName: string,
  family: TokenizerFamily,
): Pick<MessageCount, 'tokens' | 'contentClass' | 'bound'> {
  const estimate = estimateText(text, family);
  const name = estimateText(toolName, family);
  const { tokens, contentClass, bound } = combineCounts(
    { texts: [], fixed: TOOL_RESULT_OVERHEAD + MESSAGE_OVERHEAD },
    [estimate, name],
    family,
  );
  return { tokens, contentClass: estimate.contentClass ?? contentClass, bound };
}

/** What the error of an estimate depends on: its content, or that it is still a safe estimate. */
function bandOf(c: MessageCount, exactClass?: BandClass): BandClass {
  return c.exact ? (exactClass ?? c.contentClass ?? 'prose') : 'unmeasured';
}

function fixedBand(p: FixedPart): BandClass {
  return bandOf(p.count, p.component === 'tools' ? 'tools' : undefined);
}

/** A message's band class (runs of one character are a class of their own: no sample vouches for the next). */
function messageBands(countOf: (m: Message) => MessageCount): (m: Message) => BandClass {
  const repetitive = new WeakMap<Message, boolean>();
  return (m) => {
    const c = countOf(m);
    if (!c.exact) return 'unmeasured';
    let r = c.repetitive ?? repetitive.get(m);
    if (r === undefined) repetitive.set(m, (r = isRepetitive(messageSampleText(m))));
    return r ? 'repetitive' : bandOf(c);
  };
}

/** Raw counts of the system sections and of each tool definition, each with its component. */
interface FixedPartCounts {
  systemRaw: (system: readonly SystemSection[]) => FixedPart[];
  toolsParts: (tools: readonly ToolDefinition[]) => FixedPart[];
  /** The same units' tokenizer counts, awaited. */
  exact: (system: readonly SystemSection[], tools: readonly ToolDefinition[]) => Promise<unknown>;
}

/**
 * Counts the fixed parts of requests. System sections and tool definitions are
 * re-measured after every message: memoized per array (the loop passes the same arrays until the next
 * request) until their count is exact.
 */
function fixedPartCounts(ledger: TokenLedger, family: TokenizerFamily): FixedPartCounts {
  const fixedCounts = new WeakMap<object, { parts: FixedPart[]; exact: boolean }>();
  const memoCount = (key: object, count: () => { parts: FixedPart[]; exact: boolean }): FixedPart[] => {
    const hit = fixedCounts.get(key);
    if (hit?.exact) return hit.parts;
    const c = count();
    fixedCounts.set(key, c);
    return c.parts;
  };
  const systemRaw = (system: readonly SystemSection[]): FixedPart[] =>
    memoCount(system, () => {
      let exact = true;
      const parts = system.map((s): FixedPart => {
        const count = ledger.countText(s.text, family);
        exact &&= count.exact;
        return { component: sectionComponent(s), count };
      });
      return { parts, exact };
    });
  const toolsParts = (tools: readonly ToolDefinition[]): FixedPart[] => {
    if (!tools.length) return [];
    // One count per tool, each scaled by its own class's factor: as one count, a tool whose description
    // is prose took the factor learned on the other tools' JSON schemas (0.7 against 1.06 for prose in
    // the harsh soak) and a newly activated tool was under-counted by 30 %, enough to overflow a 4k window.
    return memoCount(tools, () => {
      let exact = true;
      const parts = tools.map((t): FixedPart => {
        const p = toolDefinitionParts([t]);
        const count = ledger.countTexts(p.texts, family, p.fixed);
        exact &&= count.exact;
        return { component: 'tools', count };
      });
      return { parts, exact };
    });
  };
  const exact = (system: readonly SystemSection[], tools: readonly ToolDefinition[]) =>
    Promise.all([
      ...system.map((s) => ledger.countTextsExact([s.text], family)),
      ...tools.map((t) => {
        const p = toolDefinitionParts([t]);
        return ledger.countTextsExact(p.texts, family, p.fixed);
      }),
    ]);
  return { systemRaw, toolsParts, exact };
}

/** Raw tokens per content class (calibration's input). */
function tokensByClass(counts: readonly MessageCount[]): TokensByClass {
  const byClass: TokensByClass = {};
  for (const c of counts) {
    const cls = c.contentClass ?? 'prose';
    // On the scale calibration applies to (a Claude estimate's bound).
    byClass[cls] = (byClass[cls] ?? 0) + (c.bound ?? c.tokens);
  }
  return byClass;
}
