/**
 * Wires one turn of the current session: its gate (one per session and model, `SessionGate`), the
 * turn's configuration (provider, tools, workspace, results, limits) and the system prompt with the
 * workspace's rules files. Called by the `AgentSession` at the start of each turn. Pure (no vscode).
 */
import { createContextGate, scheduledCompactPort, withDynamicNotes, type DefaultContextGate } from '../agent';
import { compactOutput } from '../agent/compaction';
import { RulesFileLoader } from '../agent/rules-files';
import type { ModelLimits } from '../context/models';
import { buildSystemSections, type RulesFile } from '../context/system-prompt';
import { errorMessage, HeadroomError } from '../common/errors';
import type { SystemSection } from '../providers/types';
import {
  createBuiltinTools,
  createHistorySearchPort,
  createNodeWorkspace,
  ToolRegistry,
  withMessageRefs,
  type HistorySource,
} from '../tools';
import type { TranscriptEntry } from '../tools/history-search';
import { checkpointedWorkspace } from './checkpoint-actions';
import { compactionChain } from './compaction-wiring';
import type { SessionCore } from './session-core';

export function makeGate(core: SessionCore, limits: ModelLimits): DefaultContextGate {
  const settings = core.models.contextSettings();
  const chain = compactionChain(core);
  return createContextGate({
    limits,
    compact: (input, signal) => core.compactions.run(input, signal, (s) => chain.run(input, s)).then((r) => r && compactOutput(r)),
    prepare: (input) => chain.prepare(input),
    ledger: core.ledger,
    calibration: core.calibration,
    estimates: core.estimates,
    thresholds: settings.thresholds,
    deferred: () => {
      const s = core.policy.select();
      return { count: s.deferred.length, savedTokens: s.savedTokens };
    },
    // info: the level a LogOutputChannel shows by default (debug lines would stay hidden).
    onTrace: settings.debug ? (t) => core.env.log.info(`[guard] ${JSON.stringify(t)}`) : undefined,
  });
}

export function turnConfig(core: SessionCore) {
  const { provider, model, baseUrl } = core.models.target();
  const limits = core.models.limits();
  const gate = core.gates.for(limits);
  const folder = core.env.folder();
  if (!folder) throw new HeadroomError('invalid_request', 'Open a folder first: Headroom works on a workspace.');
  const history = historySource(core);
  // read_result also opens the transcript messages search_history names (msg_<seq>).
  const results = withMessageRefs(core.resultPort(), (seq) => transcriptMessage(core, seq));
  const tools = toolRegistry(core, gate, limits, history);
  // Every write of the turn is checkpointed first (restorable with the conversation).
  const workspace = checkpointedWorkspace(core, folder.workspace());
  return {
    provider: core.models.providerFor(provider, baseUrl, model),
    model,
    maxOutputTokens: limits.maxOutput,
    tools,
    toolContext: {
      workspace,
      results,
      approve: core.env.approvals,
      trusted: core.env.trusted(),
    },
    gate,
    // The work ledger's repeat guard, and the files commands and external tools change.
    watch: core.recorder.watch(workspace, { watchesFiles: (name) => !tools.isBuiltin(name) }),
    maxIterations: core.env.settings.maxIterations(),
    offloadThresholdBytes: core.models.contextSettings().offloadThresholdBytes,
    request: { cacheTail: true, promptCacheKey: core.summary?.id, reasoningBudget: limits.thinkingBudget || undefined },
  };
}

/** The turn's tools. Built without `admission`: the loop admits every result itself against the live context. */
function toolRegistry(core: SessionCore, gate: DefaultContextGate, limits: ModelLimits, history: HistorySource): ToolRegistry {
  const tools = new ToolRegistry({
    builtins: createBuiltinTools({
      toolSearch: core.policy,
      compact: scheduledCompactPort(gate),
      history: createHistorySearchPort(history),
    }),
    external: core.env.externalTools(),
    externalAllow: () => core.env.settings.externalToolsAllow(),
    policy: core.policy,
  });
  tools.setEffectiveWindow(limits.effectiveWindow);
  return tools;
}

/**
 * Tells the gate what the next request will carry besides the messages (system prompt with the rules
 * files and the deferral note, the tool definitions), so the meter counts them before any request of
 * the session went out, the same way a turn sends them. Never rejects; not while a turn runs.
 */
export async function expectNextRequest(core: SessionCore): Promise<void> {
  if (core.session?.isRunning) return;
  try {
    const limits = core.models.limits();
    const tools = toolRegistry(core, core.gates.for(limits), limits, historySource(core));
    const system = await systemSections(core);
    if (core.session?.isRunning) return;
    core.gates.expect(withDynamicNotes(system, { deferral: tools.selection().note }), tools.definitionsForRequest());
  } catch (err) {
    core.env.log.warn(`Could not prepare the meter's system prompt and tools: ${errorMessage(err)}`);
  }
}

/**
 * The session's whole history for search_history: the stored transcript (all of it, also before a
 * clear), or the current view when sessions are not stored.
 */
export function historySource(core: SessionCore): HistorySource {
  const store = core.store;
  const sessionId = core.summary?.id;
  const results = core.resultPort();
  const readResult = async (refId: string) => {
    const page = await results.page(refId, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
    return page?.text;
  };
  if (!store || !sessionId) {
    return { transcript: () => Promise.resolve(core.messages.map((message, i) => ({ seq: i + 1, turn: 0, message }))), readResult };
  }
  return { transcript: () => store.sessions.transcript(sessionId), readResult };
}

export async function systemSections(core: SessionCore): Promise<SystemSection[]> {
  const folder = core.env.folder();
  let rules: RulesFile[] = [];
  if (folder) {
    const root = folder.root;
    if (core.rulesLoader?.root !== root) {
      const loader = new RulesFileLoader({ workspace: createNodeWorkspace(root), onProblem: (m) => core.env.log.warn(m) });
      core.rulesLoader = { root, loader };
    }
    rules = await core.rulesLoader.loader.load();
  }
  return buildSystemSections({ rules, workspaceName: core.env.workspaceName() });
}

/**
 * One transcript message by seq (a `msg_<seq>` ref from search_history): the store reads just that
 * message (its segment, or the live database), not the whole transcript.
 */
export async function transcriptMessage(core: SessionCore, seq: number): Promise<TranscriptEntry | undefined> {
  const store = core.store;
  const sessionId = core.summary?.id;
  if (store && sessionId) return store.sessions.message(sessionId, seq);
  return (await historySource(core).transcript()).find((e) => e.seq === seq);
}
