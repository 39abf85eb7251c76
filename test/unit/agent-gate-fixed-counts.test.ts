import { strict as assert } from 'node:assert';
import { resolveModelLimits } from '../../src/context/models';
import { TokenLedger } from '../../src/context/token-ledger';
import { slowCounter } from '../fixtures/context/slow-counter';
import { createContextGate } from '../../src/agent/context-gate';
import type { Message, SystemSection, ToolDefinition } from '../../src/providers/types';

/**
 * On a small window the system prompt and the tool definitions alone can reach the compact threshold
 * by their safe estimate; the gate waited for the messages' exact counts only, so on a busy machine
 * (the worker still loading) the first turn of a near-empty session ran a compaction that could free
 * nothing. It now waits for the fixed parts' counts too.
 */
describe('agent: the gate waits for the exact counts of the system prompt and tools before compacting', function () {
  this.timeout(30_000);
  const prose = (i: number) =>
    `Reads a file of the workspace number ${i}, returning its text with line numbers so that later edits can cite them exactly; ` +
    'large files are returned a page at a time and the rest is stored for later reading. '.repeat(6);
  const tools: ToolDefinition[] = Array.from({ length: 24 }, (_, i) => ({
    name: `tool_${i}`,
    description: prose(i),
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'The path, relative to the workspace.' } },
      required: ['path'],
    },
  }));
  const system: SystemSection[] = [{ id: 'base', text: prose(99).repeat(3) }];
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }], timestamp: 1 }];

  /** A window whose compact threshold lies between the exact count of the fixed parts and their estimate. */
  async function windowBetween(): Promise<number> {
    const exact = new TokenLedger(await slowCounter(0));
    const estimated = new TokenLedger(undefined);
    for (let window = 4_000; window <= 40_000; window += 250) {
      const limits = resolveModelLimits('gpt-4.1', 'openai', {
        models: { 'gpt-4.1': { contextWindow: window, maxOutput: 1_000 } },
        providers: {},
        bufferFraction: 0.02,
      });
      const probe = (ledger: TokenLedger) => {
        let compacted = false;
        const gate = createContextGate({
          limits,
          ledger,
          exactCountTimeoutMs: 10_000,
          compact: () => ((compacted = true), Promise.resolve({ messages, strategies: ['test'] })),
        });
        return gate.preflight({ messages, system, tools, reason: 'request' }, new AbortController().signal).then(() => compacted);
      };
      if (!(await probe(exact)) && (await probe(estimated))) return window;
    }
    throw new Error('no window separates the estimate from the count');
  }

  it('does not compact a near-empty session whose fixed parts only look large by their estimate', async () => {
    const window = await windowBetween();
    const limits = resolveModelLimits('gpt-4.1', 'openai', {
      models: { 'gpt-4.1': { contextWindow: window, maxOutput: 1_000 } },
      providers: {},
      bufferFraction: 0.02,
    });
    let compacted = false;
    const gate = createContextGate({
      limits,
      ledger: new TokenLedger(await slowCounter(300)),
      exactCountTimeoutMs: 20,
      exactCountMaxWaitMs: 10_000,
      compact: () => ((compacted = true), Promise.resolve({ messages, strategies: ['test'] })),
    });
    await gate.preflight({ messages, system, tools, reason: 'request' }, new AbortController().signal);
    assert.equal(compacted, false, `a ${window}-token window: the exact count of the system prompt and tools is under the threshold`);
  });
});
