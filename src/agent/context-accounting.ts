/**
 * The context's accounting, per component and per content class, with the provider-confirmed base
 * (DESIGN §3): what the gate projects and the meter shows. Each system section and message is counted
 * where it lives (context/prompt-components); tokenizer counts are calibrated per content class (a
 * factor learned on prose never lowers code, CJK or base64), byte estimates by the whole-request
 * factor; after a response the provider's figure for that request is the base and only what was added
 * since is estimated, with a band from the errors observed so far. Pure (no vscode); never throws if
 * the ledger does not.
 */
import { COMPONENT_NAMES, type BudgetComponents } from '../context/budget';
import { reportedInputTokens, type Calibration } from '../context/calibration';
import { baseApplies, scaleToTotal, type EstimateState } from '../context/confirmed-base';
import { contentClass, messageClass, type ContentClass } from '../context/content-class';
import { dominantClass, type BandClass, type ClassTokens } from '../context/estimate-band';
import { estimateMessage, toolDefinitionParts } from '../context/message-tokens';
import type { ModelLimits } from '../context/models';
import { messageComponent, sectionComponent, type MessageComponent, type SectionComponent } from '../context/prompt-components';
import type { TokenLedger } from '../context/token-ledger';
import { byteEstimate } from '../context/utf8';
import type { Message, ProviderRequest, SystemSection, ToolDefinition, Usage } from '../providers/types';

/** One system section (or all tool definitions) as counted: where it belongs and how it is calibrated. */
interface FixedPart {
  component: SectionComponent;
  /** Its content class, or `unmeasured` while it is a byte estimate. */
  cls: BandClass;
  raw: number;
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

/** The calibration entry of a model's content class. */
export function calibrationKey(model: string, cls: BandClass): string {
  return `${model}#${cls}`;
}

export interface ContextAccounting {
  /** Calibrated tokens of one message (memoized counts; the factor of its content class). */
  tokensOf: (message: Message) => number;
  /** Calibrated components of a request, each measured where it lives (no confirmed base). */
  components: (messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]) => BudgetComponents;
  /** The components with the confirmed base applied, and how much of them is estimated. */
  account: (messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]) => Accounting;
  /**
   * Called with the provider's usage for a request that completed: records the error of what was
   * shown (band), calibrates the dominant class, and makes the request the confirmed base.
   */
  learn: (request: ProviderRequest, usage: Usage) => void;
}

export function createContextAccounting(deps: {
  limits: ModelLimits;
  ledger: TokenLedger;
  calibration: Calibration;
  estimates: EstimateState;
}): ContextAccounting {
  const { limits, ledger, calibration, estimates } = deps;
  const family = limits.family;

  // Calibration is per content class: a factor learned on prose never lowers the estimate of code,
  // CJK or base64 (DESIGN §3). System sections count as prose; tool definitions are a class of their own.
  // Byte estimates keep the whole-request factor (what they were always scaled by).
  const factor = (cls: BandClass) => calibration.factor(cls === 'unmeasured' ? limits.model : calibrationKey(limits.model, cls));
  const scaledAs = (cls: BandClass, tokens: number) => Math.ceil(tokens * factor(cls));
  const rawTokens = (m: Message) => ledger.count(m, family).tokens;
  // A tokenizer count is calibrated by its content class; a byte estimate by what was learned on byte
  // estimates (a factor learned on tokenizer counts says nothing about them).
  const classes = new WeakMap<Message, ContentClass>();
  const classOf = (m: Message): ContentClass | undefined => {
    const hit = classes.get(m);
    if (hit) return hit;
    const c = ledger.count(m, family);
    if (!c.exact) return undefined;
    const cls = messageClass(m, c.tokens <= estimateMessage(m, family, '').tokens);
    classes.set(m, cls);
    return cls;
  };
  const tokensOf = (m: Message) => scaledAs(classOf(m) ?? 'unmeasured', rawTokens(m));
  /** What the error of a message's estimate depends on: its content, or that it is still a byte estimate. */
  const bandClass = (m: Message): BandClass => classOf(m) ?? 'unmeasured';
  // System sections and tool definitions are re-measured after every message: memoized per array
  // (the loop passes the same arrays until the next request) until their count is exact.
  const fixedCounts = new WeakMap<object, { parts: FixedPart[]; exact: boolean }>();
  const memoCount = (key: object, count: () => { parts: FixedPart[]; exact: boolean }): FixedPart[] => {
    const hit = fixedCounts.get(key);
    if (hit?.exact) return hit.parts;
    const c = count();
    fixedCounts.set(key, c);
    return c.parts;
  };
  /** Raw tokens of each system section, with its component and content class. */
  const systemRaw = (system: readonly SystemSection[]): FixedPart[] =>
    memoCount(system, () => {
      let exact = true;
      const parts = system.map((s): FixedPart => {
        const c = ledger.countText(s.text, family);
        exact &&= c.exact;
        const cls = c.exact ? contentClass(s.text, c.tokens <= byteEstimate(Buffer.byteLength(s.text, 'utf8'))) : 'unmeasured';
        return { component: sectionComponent(s), cls, raw: c.tokens };
      });
      return { parts, exact };
    });
  const toolsParts = (tools: readonly ToolDefinition[]): FixedPart[] => {
    if (!tools.length) return [];
    return memoCount(tools, () => {
      const parts = toolDefinitionParts(tools);
      const c = ledger.countTexts(parts.texts, family, parts.fixed);
      return { parts: [{ component: 'system', cls: c.exact ? 'tools' : 'unmeasured', raw: c.tokens }], exact: c.exact };
    });
  };

  /** Calibrated system sections and tool definitions (`fixed` is the part of them the messages do not hold). */
  function fixedParts(
    system: readonly SystemSection[],
    tools: readonly ToolDefinition[],
  ): Pick<BudgetComponents, SectionComponent | 'tools'> {
    const out = { system: 0, rules: 0, deferredTools: 0, tools: 0 };
    for (const p of systemRaw(system)) out[p.component] += scaledAs(p.cls, p.raw);
    for (const p of toolsParts(tools)) out.tools += scaledAs(p.cls, p.raw);
    return out;
  }

  /** Calibrated components of a request, each measured where it lives. */
  function components(messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]): BudgetComponents {
    const inMessages: Record<MessageComponent, number> = { summary: 0, messages: 0, toolResults: 0 };
    for (const m of messages) inMessages[messageComponent(m)] += tokensOf(m);
    return { ...fixedParts(system, tools), ...inMessages };
  }

  const noteTokens = (note: string | undefined) => (note ? scaledAs('prose', ledger.countText(note, family).tokens) : 0);

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
        add(bandClass(messages[i]), t);
        delta += t;
      }
      const now = fixedParts(system, tools);
      const then = fixedParts(base.system, base.tools);
      // Only growth is added: what left the fixed parts since (tools dropped for a final turn, the note)
      // is not subtracted, because our estimate of it may exceed what the provider counted for it and
      // the figure must not fall below the truth.
      const prose = Math.max(0, now.system + now.rules + now.deferredTools - (then.system + then.rules + then.deferredTools));
      const toolChange = Math.max(0, now.tools - then.tools);
      add('prose', prose);
      add('tools', toolChange);
      delta += prose + toolChange;
      return { components: scaleToTotal(c, base.reported + delta), confirmed: base.reported, estimated: delta, classes };
    }
    for (const m of messages) add(bandClass(m), tokensOf(m));
    for (const p of [...systemRaw(system), ...toolsParts(tools)]) add(p.cls, scaledAs(p.cls, p.raw));
    return { components: c, estimated: sumOf(c), classes };
  }

  function learn(request: ProviderRequest, u: Usage): void {
    const reported = reportedInputTokens(u);
    if (reported > 0) {
      // What the meter would have shown for this exact request, before learning from it.
      const a = account(request.messages, request.system, request.tools);
      const note = noteTokens(request.trailingNote);
      add(a.classes, 'prose', note);
      const shownEstimate = a.estimated + note;
      const actual = reported - (sumOf(a.components) + note - shownEstimate);
      const cls = dominantClass(a.classes);
      estimates.band.observe(limits.model, cls, shownEstimate, actual);
      // Calibrate the dominant class on its share of the truth (the other classes' estimates taken as they are).
      const own = a.classes[cls] ?? 0;
      const f = factor(cls);
      if (cls !== 'unmeasured' && own > 0 && f > 0) {
        const others = shownEstimate - own;
        calibration.observe(calibrationKey(limits.model, cls), own / f, {
          input: Math.max(0, actual - others),
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
        });
      }
      estimates.base = {
        model: limits.model,
        messages: request.messages,
        system: request.system,
        tools: request.tools,
        note: request.trailingNote,
        reported,
      };
    }
    // The whole-request factor (raw estimate against the report), for byte estimates of a kind not seen yet.
    let raw =
      toolsParts(request.tools).reduce((t, p) => t + p.raw, 0) +
      (request.trailingNote ? ledger.countText(request.trailingNote, family).tokens : 0);
    for (const p of systemRaw(request.system)) raw += p.raw;
    for (const m of request.messages) raw += rawTokens(m);
    calibration.observe(limits.model, raw, u);
  }

  return { tokensOf, components, account, learn };
}
