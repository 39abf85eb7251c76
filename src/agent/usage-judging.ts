/**
 * How the context accounting hears a provider's figure for a request: the figure is judged by
 * `UsageEvidence` against Headroom's own count of what was sent (raw, its lowest reading, the note,
 * calibrated), and a figure in doubt is told to whoever listens. Pure
 * (no vscode); never throws if the ledger does not.
 */
import { COMPONENT_NAMES, type BudgetComponents } from '../context/budget';
import { reportedInputTokens } from '../context/calibration';
import { UNMEASURED_BAND } from '../context/estimate-band';
import type { MessageCount } from '../context/message-tokens';
import { CLAUDE_CLASS_FACTORS, type ModelLimits, type TokenizerFamily } from '../context/models';
import type { TokenLedger } from '../context/token-ledger';
import type { Doubt, ReportVerdict, ServerTraits, UsageEvidence } from '../context/usage-evidence';
import type { Message, ProviderRequest, SystemSection, ToolDefinition, Usage } from '../providers/types';

/** A reported figure the accounting did not use, for the person and the log. */
export interface UsageDoubt {
  model: string;
  doubt: Doubt;
  /** The figure as read (with a cached prefix added back where the server leaves it out). */
  reported: number;
  /** What Headroom counted for the same request (calibrated). */
  estimated: number;
  /** The server may have cut the conversation (it truncates silently and the figure says so). */
  truncation: boolean;
}

/** Whether reported figures may be used, what is known of the server, and who hears of one in doubt. */
export interface GateReports {
  evidence: UsageEvidence;
  server?: () => ServerTraits | undefined;
  /** Called with every figure in doubt; must not throw (guarded). */
  onDoubt?: (doubt: UsageDoubt) => void;
}

/** What judging needs of the accounting: its counts, calibrated. */
export interface JudgingParts {
  limits: ModelLimits;
  ledger: TokenLedger;
  reports?: GateReports;
  components(messages: readonly Message[], system: readonly SystemSection[], tools: readonly ToolDefinition[]): BudgetComponents;
  noteTokens(note: string | undefined): number;
  /** Calibrated tokens of one message. */
  tokensOf(message: Message): number;
}

const sumOf = (c: BudgetComponents): number => COMPONENT_NAMES.reduce((s, n) => s + c[n], 0);

/**
 * The provider's figure for `request` (whose raw counts are `raw`), judged against what was sent;
 * a figure in doubt is told (`onDoubt`). Undefined when there is no figure; every figure is used
 * when there is no `reports`.
 */
export function judgeUsage(
  parts: JudgingParts,
  request: ProviderRequest,
  u: Usage,
  raw: readonly MessageCount[],
): ReportVerdict | undefined {
  const reported = reportedInputTokens(u);
  if (!(reported > 0)) return undefined;
  const { limits, ledger, reports } = parts;
  if (!reports) return { total: reported, confirm: true, calibrate: true };
  const family = limits.family;
  const verdict = reports.evidence.judge({
    model: limits.model,
    request,
    reported,
    estimate: raw.reduce((n, c) => n + c.tokens, 0),
    lowest: raw.reduce((n, c) => n + lowestReading(c, family), 0),
    noteTokens: request.trailingNote ? ledger.countText(request.trailingNote, family).tokens : 0,
    output: u.output,
    contextWindow: limits.contextWindow,
    server: reports.server?.(),
    counted: sumOf(parts.components(request.messages, request.system, request.tools)) + parts.noteTokens(request.trailingNote),
    shared: (previous) => shared(parts, previous, request),
  });
  if (verdict.doubt) tell(parts, request, verdict);
  return verdict;
}

/**
 * Calibrated tokens of what `b` shares at its start with `a`, whatever order a server's template puts
 * the parts in: the system sections up to the first that differs, the tools up to the first that
 * differs, and, when both are the same, the leading messages.
 */
function shared(parts: JudgingParts, a: ProviderRequest, b: ProviderRequest): number {
  let system = 0;
  while (system < Math.min(a.system.length, b.system.length) && a.system[system].text === b.system[system].text) system++;
  let tools = 0;
  while (tools < Math.min(a.tools.length, b.tools.length) && a.tools[tools].name === b.tools[tools].name) tools++;
  let n = sumOf(parts.components([], b.system.slice(0, system), b.tools.slice(0, tools)));
  if (system !== a.system.length || system !== b.system.length || tools !== a.tools.length || tools !== b.tools.length) return n;
  for (let i = 0; i < Math.min(a.messages.length, b.messages.length) && a.messages[i] === b.messages[i]; i++)
    n += parts.tokensOf(b.messages[i]);
  return n;
}

/** Tells `onDoubt` of a figure that was not used, with what Headroom counted for the request. */
function tell(parts: JudgingParts, request: ProviderRequest, v: ReportVerdict): void {
  try {
    const estimated = sumOf(parts.components(request.messages, request.system, request.tools)) + parts.noteTokens(request.trailingNote);
    parts.reports?.onDoubt?.({
      model: parts.limits.model,
      doubt: v.doubt!,
      reported: v.total,
      estimated,
      truncation: v.truncation === true,
    });
  } catch {
    // Telling is best effort; the figure stays unused either way.
  }
}

/**
 * The least a raw count can stand for: a tokenizer count as it is, a safe estimate divided by its
 * largest over-count (`UNMEASURED_BAND`), Claude's class factor undone (its estimate is o200k × factor).
 */
function lowestReading(c: MessageCount, family: TokenizerFamily): number {
  const factor = family === 'claude' ? CLAUDE_CLASS_FACTORS[c.contentClass ?? 'prose'] : 1;
  return c.tokens / factor / (c.exact ? 1 : 1 + UNMEASURED_BAND);
}
