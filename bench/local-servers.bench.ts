// figures: local_lmstudio_jit_requests_over local_lmstudio_jit_silently_truncated local_lmstudio_jit_meter_turns_within_5pct local_ollama_05_requests_over local_ollama_05_silently_truncated local_ollama_05_meter_turns_within_5pct local_ollama_other_client_requests_over local_ollama_other_client_silently_truncated local_ollama_other_client_meter_turns_within_5pct local_ollama_030_requests_over local_ollama_030_silently_truncated local_ollama_030_meter_turns_within_5pct local_llamacpp_requests_over local_llamacpp_silently_truncated local_llamacpp_meter_turns_within_5pct local_llamacpp_sent_under_5pct local_vllm_requests_over local_vllm_silently_truncated local_vllm_meter_turns_within_5pct local_vllm_sent_under_5pct
/**
 * Local servers as they really behave, through the session service (`test/fixtures/app/local-scenarios.ts`):
 * LM Studio loading a model on its first request, Ollama 0.5 at 2,048, Ollama with the model loaded at
 * 32,768 by another client, Ollama 0.30.0 counting without its cached prefix, plain llama.cpp and vLLM;
 * a 32k SentencePiece tokenizer; six turns of large Chinese / log / minified / base64 reads. Per server:
 *   local_<server>_requests_over             requests over the context the server ran them with (target 0)
 *   local_<server>_silently_truncated        requests the server cut without a word (target 0)
 *   local_<server>_meter_turns_within_5pct   turns after which the meter was within 5 % of the server's count (target ≥ 5 of 6)
 * and, for the servers that count a prompt before it is sent (llama.cpp, vLLM `/tokenize`):
 *   local_<server>_sent_under_5pct           requests sent while the meter showed more than 5 % under the
 *                                            server's count of them (target 0)
 * with the meter and the true count after each turn, and the window the meter used.
 */
import { LOCAL_SCENARIOS, runLocalScenario, sentUnder, within } from '../test/fixtures/app/local-scenarios';
import { report } from './util';

async function main(): Promise<void> {
  for (const scenario of LOCAL_SCENARIOS) {
    const run = await runLocalScenario(scenario);
    const detail = {
      server: scenario.name,
      turns: run.turns.length,
      requests: run.turns.reduce((n, t) => n + t.requests, 0),
      meter: run.turns.map((t) => t.meter),
      truth: run.turns.map((t) => t.truth),
      windows: run.turns.map((t) => t.window),
      worstError: Math.max(...run.turns.map((t) => Math.round((1000 * Math.abs(t.meter - t.truth)) / Math.max(1, t.truth)) / 1000)),
    };
    const sum = (f: (t: (typeof run.turns)[number]) => number) => run.turns.reduce((n, t) => n + f(t), 0);
    report({
      bench: `local_${scenario.key}_requests_over`,
      value: sum((t) => t.over),
      unit: 'count',
      target: 0,
      better: 'lower',
      ...detail,
    });
    report({
      bench: `local_${scenario.key}_silently_truncated`,
      value: sum((t) => t.truncated),
      unit: 'count',
      target: 0,
      better: 'lower',
      ...detail,
    });
    report({
      bench: `local_${scenario.key}_meter_turns_within_5pct`,
      value: run.turns.filter((t) => within(t)).length,
      unit: 'turns',
      target: 5,
      better: 'higher',
      ...detail,
    });
    if (scenario.server.flavour === 'llamacpp' || scenario.server.flavour === 'vllm')
      report({
        bench: `local_${scenario.key}_sent_under_5pct`,
        value: sum((t) => sentUnder(t)),
        unit: 'count',
        target: 0,
        better: 'lower',
        counted: sum((t) => t.counted),
        ...detail,
      });
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  },
);
