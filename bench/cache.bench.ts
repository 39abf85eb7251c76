// figures: cache_read_share cache_read_share_high_usage
/**
 * cache_read_share_high_usage: a session through the production prompt path (buildSystemSections, the
 * loop's notes and request builder) from 80 % to 98 % of the effective window, where every request
 * carries a changing "[Context: N % used]" note; value: cache reads ÷ all input tokens over that band.
 *
 * cache_read_share: a 50-request scripted agent conversation (tool calls and results of varied size)
 * through the Anthropic adapter against the fake provider, with breakpoints after the stable system
 * sections and on the conversation tail. Value: input tokens read from cache ÷ all input tokens over
 * the last 40 requests (the first 10 warm the cache).
 */
import { AnthropicProvider } from '../src/providers/anthropic';
import type { Message, SystemSection, ToolDefinition, Usage } from '../src/providers/types';
import { startFakeProvider } from '../test/fixtures/fake-provider';
import { run, toolResult, user } from '../test/fixtures/fake-provider/factories';
import { cacheReadShare, runHighUsage } from '../test/fixtures/agent/high-usage';
import { r3, report } from './util';

const REQUESTS = 50;
const MEASURED = 40;

const system: SystemSection[] = [
  {
    id: 'base',
    text: Array.from({ length: 600 }, (_, i) => `Instruction ${i}: keep edits small and explain them.`).join(' '),
    cacheBreakpoint: true,
  },
  {
    id: 'rules',
    text: Array.from({ length: 150 }, (_, i) => `Project rule ${i}: prefer pure functions in src/context.`).join(' '),
    cacheBreakpoint: true,
  },
];
const tools: ToolDefinition[] = ['read_file', 'list_files', 'search', 'edit_file', 'run_command'].map((name) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
}));

/** A deterministic tool output of roughly `lines` lines. */
function output(step: number, lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${step}:${i} export function f${step}_${i}(x: number) { return x * ${i}; }`).join('\n');
}

async function main(): Promise<void> {
  const server = await startFakeProvider({ window: 1_000_000 });
  const provider = new AnthropicProvider({ apiKey: 'bench-key', baseUrl: server.baseUrl });
  const messages: Message[] = [user('Refactor the cache layer and keep the tests green.')];
  const usages: Usage[] = [];
  try {
    for (let i = 0; i < REQUESTS; i++) {
      const last = i === REQUESTS - 1;
      server.script.push(
        last
          ? { text: 'All done.' }
          : { text: `Step ${i}.`, toolCalls: [{ id: `t${i}`, name: 'read_file', arguments: { path: `src/f${i}.ts` } }] },
      );
      const { message } = await run(provider, { model: 'claude-bench', system, tools, messages, maxOutputTokens: 4096, cacheTail: true });
      if (message.stopReason === 'error') throw new Error(message.error?.message);
      usages.push(message.usage);
      messages.push(message);
      if (!last) messages.push(toolResult(`t${i}`, 'read_file', output(i, 5 + ((i * 37) % 60))));
      if (i % 10 === 9) messages.push(user(`Checkpoint ${i}: continue.`));
    }
  } finally {
    await server.close();
  }
  const tail = usages.slice(-MEASURED);
  const read = tail.reduce((s, u) => s + u.cacheRead, 0);
  const all = tail.reduce((s, u) => s + u.input + u.cacheRead + u.cacheWrite, 0);
  report({
    bench: 'cache_read_share',
    value: r3(read / all),
    unit: 'ratio',
    target: 0.85,
    better: 'higher',
    requests: REQUESTS,
    measured: MEASURED,
    inputTokens: all,
    cacheReadTokens: read,
    lastPromptTokens: usages.at(-1)!.input + usages.at(-1)!.cacheRead + usages.at(-1)!.cacheWrite,
  });
}

async function highUsage(): Promise<void> {
  const run = await runHighUsage({ window: 64_000, fromRatio: 0.8, toRatio: 0.98 });
  const band = run.requests.filter((r) => r.ratio >= 0.8);
  const { share, input, read } = cacheReadShare(band);
  report({
    bench: 'cache_read_share_high_usage',
    value: r3(share),
    unit: 'ratio',
    target: 0.85,
    better: 'higher',
    requests: band.length,
    withNote: band.filter((r) => r.note).length,
    inputTokens: input,
    cacheReadTokens: read,
    fromRatio: r3(band[0]?.ratio ?? 0),
    toRatio: r3(band.at(-1)?.ratio ?? 0),
  });
}

void main().then(highUsage);
