/**
 * How one turn of the current session is wired: its gate (one per session and model, kept by
 * `turns.ts` in a `SessionGate`), its tools, and its configuration (provider, tools, workspace,
 * results, limits). Builders only: what they read is handed in, and none of them changes state.
 * Pure (no vscode).
 */
import { createContextGate, scheduledCompactPort, type ContextGateOptions, type DefaultContextGate } from '../agent';
import type { WorkWatch } from '../agent/ledger';
import type { Calibration } from '../context/calibration';
import type { EstimateState } from '../context/confirmed-base';
import type { InputCountPolicy } from '../agent/input-confirmation';
import { contextEditingFor } from '../context/compaction';
import { chooseCacheLifetime, lifetimesOffered, type CacheLifetime, type CacheRequestRecord } from '../context/cache-lifetime';
import { loadsToolsByReference, pricesFor, type ModelLimits } from '../context/models';
import type { ProviderId } from '../providers/types';
import { isSmallWindow } from '../context/small-window';
import type { TokenLedger } from '../context/token-ledger';
import type { UsageEvidence } from '../context/usage-evidence';
import {
  createBuiltinTools,
  createHistorySearchPort,
  ToolRegistry,
  withMessageRefs,
  type DeferralPolicy,
  type HistorySource,
} from '../tools';
import type { TranscriptEntry } from '../tools/history-search';
import type { ResultPort, WorkspacePort } from '../tools/ports';
import type { HostEnvironment } from './host-environment';
import type { ModelAccess } from './model-access';

/** What a gate is built from. */
export interface GateParts {
  readonly env: HostEnvironment;
  readonly models: Pick<ModelAccess, 'contextSettings' | 'serverTraits' | 'usageDoubted'>;
  /** The compaction chain's way in, through the runner (`compactions.ts` `gateHooks`). */
  readonly compaction: Pick<ContextGateOptions, 'compact' | 'prepare'>;
  readonly ledger: TokenLedger;
  readonly calibration: Calibration;
  readonly estimates: EstimateState;
  /** Whether each reported usage figure may be used (the last one used, per model). */
  readonly evidence: UsageEvidence;
  readonly policy: DeferralPolicy;
  /** Exact input counts before sending, where the provider can count (one policy per session). */
  readonly inputCounts: InputCountPolicy;
}

export function makeGate(parts: GateParts, limits: ModelLimits): DefaultContextGate {
  const settings = parts.models.contextSettings();
  return createContextGate({
    limits,
    ...parts.compaction,
    ledger: parts.ledger,
    calibration: parts.calibration,
    estimates: parts.estimates,
    reports: { evidence: parts.evidence, server: () => parts.models.serverTraits(), onDoubt: (d) => parts.models.usageDoubted(d) },
    thresholds: settings.thresholds,
    inputCount: parts.inputCounts.forGate({
      limits,
      thresholds: settings.thresholds,
      ledger: parts.ledger,
      calibration: parts.calibration,
      estimates: parts.estimates,
    }),
    deferred: () => {
      const s = parts.policy.select();
      return { count: s.deferred.length, savedTokens: s.savedTokens };
    },
    // info: the level a LogOutputChannel shows by default (debug lines would stay hidden).
    onTrace: settings.debug ? (t) => parts.env.log.info(`[guard] ${JSON.stringify(t)}`) : undefined,
  });
}

/** What a turn's tools are built from. */
export interface ToolParts {
  readonly env: HostEnvironment;
  readonly policy: DeferralPolicy;
  readonly history: HistorySource;
}

/** The turn's tools. Built without `admission`: the loop admits every result itself against the live context. */
export function toolRegistry(parts: ToolParts, gate: DefaultContextGate, limits: ModelLimits): ToolRegistry {
  const tools = new ToolRegistry({
    builtins: createBuiltinTools({
      toolSearch: parts.policy,
      compact: scheduledCompactPort(gate),
      history: createHistorySearchPort(parts.history),
    }),
    external: parts.env.externalTools(),
    externalAllow: () => parts.env.settings.externalToolsAllow(),
    policy: parts.policy,
  });
  tools.setEffectiveWindow(limits.effectiveWindow);
  tools.setSmallWindow(isSmallWindow(limits.contextWindow));
  return tools;
}

/** What a turn's configuration is built from, besides its tools. */
export interface TurnParts extends ToolParts {
  readonly models: ModelAccess;
  readonly gate: DefaultContextGate;
  readonly limits: ReturnType<ModelAccess['limits']>;
  /** Where the turn's offloaded results go. */
  readonly results: ResultPort;
  /** One transcript message by seq, for the `msg_<seq>` refs search_history names. */
  readonly message: (seq: number) => Promise<TranscriptEntry | undefined>;
  /** The workspace the turn's tools write through (checkpointed by the caller). */
  readonly workspace: WorkspacePort;
  readonly sessionId: string | undefined;
  /** The session's recent requests as the cache saw them (the cache lifetime is chosen from their gaps). */
  readonly cacheHistory: () => readonly CacheRequestRecord[];
  /** The work ledger's watch over the turn's tool calls; `watchesFiles`: walk the workspace around this tool. */
  readonly watch: (workspace: WorkspacePort, options: { watchesFiles: (name: string) => boolean }) => WorkWatch;
  /** The provider refused its own context editing earlier in the session (then requests go without it). */
  readonly editsRefused: boolean;
  /** The provider refused its context editing now (`message`: its words). */
  readonly onEditsRefused: (message: string) => void;
  /** The provider refused deferred tools loaded by reference earlier in the session (then activated tools are listed). */
  readonly referencesRefused: boolean;
  readonly onReferencesRefused: (message: string) => void;
}

/** The provider's own clearing of old tool uses the turn's requests ask for (`contextEditingFor`). */
function editingOf(parts: TurnParts, tools: ToolRegistry) {
  const { models, limits, env } = parts;
  const editing = contextEditingFor({
    provider: models.target().provider,
    capabilities: limits.capabilities,
    allowed: env.settings.compaction().native,
    refused: parts.editsRefused,
    effectiveWindow: limits.effectiveWindow,
    thresholds: models.contextSettings().thresholds,
    thinking: limits.thinking !== undefined && limits.thinking.mode !== 'disabled',
    keptTools: tools.keptInContext(),
  });
  return editing ? { contextEditing: editing } : {};
}

/** The cache lifetime the turn's requests ask for (`headroom.cacheLifetime`; `auto` from the session's idle gaps). */
function lifetimeOf(parts: TurnParts, provider: ProviderId, model: string): { cacheLifetime?: CacheLifetime } {
  const setting = parts.models.contextSettings().cacheLifetime;
  const lifetime = chooseCacheLifetime(setting, lifetimesOffered(provider, model), parts.cacheHistory(), provider, pricesFor(model));
  return lifetime ? { cacheLifetime: lifetime } : {};
}

export function turnConfig(parts: TurnParts) {
  const { env, models, gate, limits } = parts;
  const { provider, model, baseUrl } = models.target();
  const tools = toolRegistry(parts, gate, limits);
  parts.policy.setByReference(!parts.referencesRefused && loadsToolsByReference(model, provider));
  return {
    provider: models.providerFor(provider, baseUrl, model),
    model,
    maxOutputTokens: limits.maxOutput,
    tools,
    toolContext: {
      workspace: parts.workspace,
      // read_result also opens the transcript messages search_history names (msg_<seq>).
      results: withMessageRefs(parts.results, parts.message),
      approve: env.approvals,
      trusted: env.trusted(),
    },
    gate,
    // The work ledger's repeat guard, and the files commands and external tools change.
    watch: parts.watch(parts.workspace, { watchesFiles: (name) => !tools.isBuiltin(name) }),
    maxIterations: env.settings.maxIterations(),
    offloadThresholdBytes: models.contextSettings().offloadThresholdBytes,
    request: {
      cacheTail: true,
      promptCacheKey: parts.sessionId,
      ...(limits.thinking ? { thinking: limits.thinking } : {}),
      ...lifetimeOf(parts, provider, model),
      ...editingOf(parts, tools),
    },
    onContextEditingRefused: parts.onEditsRefused,
    onToolReferencesRefused: parts.onReferencesRefused,
  };
}
