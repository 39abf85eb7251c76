// figures: soak_overflow_errors_ollama soak_silent_truncations_ollama soak_overflow_errors_lmstudio soak_silent_truncations_lmstudio soak_overflow_errors_llamacpp soak_silent_truncations_llamacpp soak_overflow_errors_vllm soak_silent_truncations_vllm
/**
 * Soak against local servers: the scripted soak turns (huge tool outputs, CJK, deferred
 * tools) through the real agent loop and the OpenAI-compatible adapter, against the fake provider
 * acting as Ollama, LM Studio, llama.cpp and vLLM, each serving a 16k context for a model the
 * model table does not know (so without discovery Headroom would assume 128k). Headroom learns the
 * window from the server's own endpoints, as the extension does. Prints per flavour:
 *   soak_overflow_errors_<flavour>     requests the server refused as too long (target 0)
 *   soak_silent_truncations_<flavour>  requests whose start the server silently dropped (Ollama; target 0)
 * and, as a control that the bench can fail, the Ollama run budgeted WITHOUT discovery
 * (`soak_silent_truncations_ollama_undiscovered`, informational). SOAK_FLAVOUR_TURNS sets the turns (default 60).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createCompactionChain } from '../src/agent/compaction';
import { createContextGate } from '../src/agent/context-gate';
import { runTurn } from '../src/agent/run-turn';
import type { TurnConfig, TurnContext } from '../src/agent/turn-config';
import { resolveModelLimits } from '../src/context/models';
import { TokenLedger } from '../src/context/token-ledger';
import { TokenWorkerClient } from '../src/context/token-worker-client';
import { createProvider } from '../src/providers/create-provider';
import { discoverServerWindow } from '../src/providers/server-discovery';
import type { Message } from '../src/providers/types';
import { createBuiltinTools } from '../src/tools/builtin/index';
import { DeferralPolicy } from '../src/tools/deferral';
import { createNodeWorkspace } from '../src/tools/node-workspace';
import { ToolRegistry } from '../src/tools/registry';
import { externalTools, user } from '../test/fixtures/agent/harness';
import { SOAK_EXTERNAL_TOOLS, soakModel, soakPrompt } from '../test/fixtures/agent/soak-plan';
import { createRetainingResultPort, createSoakTools } from '../test/fixtures/agent/soak-tools';
import { startFakeProvider, type FakeFlavour } from '../test/fixtures/fake-provider';
import { recordingApproval, removeDir, tempWorkspace } from '../test/fixtures/tools/tool-context';
import { report } from './util';

const TURNS = Number(process.env.SOAK_FLAVOUR_TURNS ?? 60);
const SERVER_WINDOW = 16_384;
const MODEL = 'qwen2.5-coder:7b';
const FLAVOURS: FakeFlavour[] = ['ollama', 'lmstudio', 'llamacpp', 'vllm'];

interface FlavourRun {
  overflows: number;
  truncations: number;
  requests: number;
  compactions: number;
  loopErrors: number;
  window: number;
  source: string;
}

async function soakFlavour(flavour: FakeFlavour, discover: boolean, turns: number): Promise<FlavourRun> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 5; i++)
    files[`src/module${i}.ts`] = Array.from({ length: 120 }, (_, j) => `export const value${j} = ${i * 1000 + j}; // module ${i}`).join(
      '\n',
    );
  const root = await tempWorkspace(files);
  const server = await startFakeProvider({ flavour, window: SERVER_WINDOW });
  server.setWindow(MODEL, SERVER_WINDOW);
  const dist = join(__dirname, '..', 'dist', 'token-worker.js');
  const counter = new TokenWorkerClient(
    existsSync(dist)
      ? { workerPath: dist }
      : { workerPath: join(__dirname, '..', 'src', 'context', 'token-worker.ts'), execArgv: ['--require', 'tsx/cjs'] },
  );
  counter.start();
  const found = discover ? await discoverServerWindow(server.openaiBaseUrl, MODEL, fetch) : undefined;
  const limits = resolveModelLimits(MODEL, 'openai-compatible', { models: {}, providers: {}, bufferFraction: 0.02 }, found);
  const provider = createProvider({ provider: 'openai-compatible', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } });
  const policy = new DeferralPolicy();
  const registry = new ToolRegistry({
    builtins: [...createBuiltinTools({ toolSearch: policy }), ...createSoakTools()],
    external: externalTools(SOAK_EXTERNAL_TOOLS),
    policy,
  });
  registry.setEffectiveWindow(limits.effectiveWindow);
  const results = createRetainingResultPort(64 * 1024 * 1024);
  // The compaction chain without its model step: the scripted server would answer a summary request with a turn's reply.
  const chain = createCompactionChain({ results });
  const gate = createContextGate({
    limits,
    ledger: new TokenLedger(counter),
    compact: chain.hook,
    prepare: (input) => chain.prepare(input),
  });
  const config: TurnConfig = {
    provider,
    model: MODEL,
    maxOutputTokens: limits.maxOutput,
    tools: registry,
    toolContext: { workspace: createNodeWorkspace(root), results, approve: recordingApproval(), trusted: true },
    gate,
    persist: async () => {},
    maxIterations: 8,
  };
  const system = [{ id: 'base', text: 'You are Headroom, a coding agent. Work carefully and report what you did.', cacheBreakpoint: true }];
  let view: Message[] = [];
  let compactions = 0;
  let loopErrors = 0;
  for (let k = 0; k < turns; k++) {
    server.script.length = 0;
    for (let i = 0; i < 16; i++) server.script.push(soakModel(k));
    const ctx: TurnContext = { messages: view, system, prompt: user(soakPrompt(k)) };
    await runTurn(ctx, config, new AbortController().signal, (e) => {
      if (e.type === 'compaction') compactions++;
      else if (e.type === 'error') loopErrors++;
    });
    view = ctx.messages;
  }
  const requests = server.requests.filter((r) => r.protocol === 'openai');
  await server.close();
  counter.dispose();
  await removeDir(root);
  return {
    overflows: requests.filter((r) => r.outcome === 'overflow').length,
    truncations: requests.filter((r) => (r.silentlyTruncatedTokens ?? 0) > 0).length,
    requests: requests.length,
    compactions,
    loopErrors,
    window: limits.contextWindow,
    source: limits.source,
  };
}

async function main(): Promise<void> {
  for (const flavour of FLAVOURS) {
    const r = await soakFlavour(flavour, true, TURNS);
    const detail = {
      turns: TURNS,
      serverWindow: SERVER_WINDOW,
      budgetWindow: r.window,
      windowSource: r.source,
      requests: r.requests,
      compactions: r.compactions,
      loopErrors: r.loopErrors,
    };
    report({ bench: `soak_overflow_errors_${flavour}`, value: r.overflows, unit: 'count', target: 0, better: 'lower', ...detail });
    report({ bench: `soak_silent_truncations_${flavour}`, value: r.truncations, unit: 'count', target: 0, better: 'lower', ...detail });
  }
  const control = await soakFlavour('ollama', false, Math.min(TURNS, 20));
  report({
    bench: 'soak_silent_truncations_ollama_undiscovered',
    value: control.truncations,
    unit: 'count',
    better: 'lower',
    note: 'control: the same soak budgeted without asking the server (the 128k default); shows the bench can fail',
    turns: Math.min(TURNS, 20),
    budgetWindow: control.window,
    windowSource: control.source,
    requests: control.requests,
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`soak-flavours bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
