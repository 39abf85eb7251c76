import assert from 'node:assert/strict';
import { createContextAccounting } from '../../src/agent/context-accounting';
import { Calibration } from '../../src/context/calibration';
import { EstimateState } from '../../src/context/confirmed-base';
import { toolDefinitionParts } from '../../src/context/message-tokens';
import { resolveModelLimits } from '../../src/context/models';
import { TokenLedger } from '../../src/context/token-ledger';
import type { ToolDefinition } from '../../src/providers/types';
import { inProcessCounter } from '../fixtures/context/in-process-counter';

const usage = (input: number) => ({ input, output: 10, cacheRead: 0, cacheWrite: 0 });

/** A built-in-like tool: a short description and a JSON schema with several properties. */
const jsonTool = (i: number): ToolDefinition => ({
  name: `tool_${i}`,
  description: `Tool ${i}.`,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(
      Array.from({ length: 8 }, (_, k) => [`field_${k}`, { type: k % 2 ? 'integer' : 'string', minimum: k, maxLength: 100 + k }]),
    ),
    required: ['field_0', 'field_1'],
  },
});

/** An external tool activated later: a long prose description, a tiny schema (the soak's `ext_tool_*`). */
const proseTool: ToolDefinition = {
  name: 'ext_tool_3',
  description: 'External tool number 3. ' + 'It does many careful things. '.repeat(30),
  inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
};

/**
 * The 4k soak's last overflows: the tool definitions were one count with one content class
 * (the built-ins' JSON schemas), so a deferred tool activated later, whose description is prose, was
 * scaled by the factor learned on JSON (0.7 for the Claude family against a harsh tokenizer) instead of
 * prose's (~1.06): its schema was under-counted by ~30 % and a request at 93 % by our figure was 103 %
 * by the provider's (soak_overflow_errors_4k 5 of 110 → 0).
 */
describe('tool definitions are counted per tool, each by its own content class', () => {
  it('a newly activated tool with a prose description is scaled by the prose factor, not by the factor the JSON schemas learned', async () => {
    const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic', { models: {}, providers: {}, bufferFraction: 0.02 });
    const ledger = new TokenLedger(inProcessCounter());
    const calibration = new Calibration();
    // What the soak learned: JSON counted ~30 % high for the Claude family, prose slightly low.
    for (let i = 0; i < 4; i++) {
      calibration.observeClasses(limits.model, { structured: 10_000 }, usage(7_000));
      calibration.observeClasses(limits.model, { prose: 10_000 }, usage(10_600));
    }
    const prose = calibration.factorFor(limits.model, 'prose');
    assert.ok(calibration.factorFor(limits.model, 'structured') < 0.75 && prose > 1);
    const accounting = createContextAccounting({ limits, ledger, calibration, estimates: new EstimateState() });

    const builtins = Array.from({ length: 12 }, (_, i) => jsonTool(i));
    const activated = [...builtins, proseTool];
    // Every count the accounting may ask for (per tool, or all tools as one) is exact before measuring.
    for (const tools of [builtins, activated, ...activated.map((t) => [t])]) {
      const parts = toolDefinitionParts(tools);
      while (!ledger.countTexts(parts.texts, limits.family, parts.fixed).exact) await new Promise((r) => setImmediate(r));
    }
    const own = ledger.countTexts(toolDefinitionParts([proseTool]).texts, limits.family, toolDefinitionParts([proseTool]).fixed);
    assert.equal(own.contentClass, 'prose');
    const before = accounting.components([], [], builtins).tools;
    const after = accounting.components([], [], activated).tools;
    assert.ok(
      after - before >= Math.floor(own.tokens * prose),
      `the activated tool adds ${after - before} tokens; at its own class's factor it is ${Math.ceil(own.tokens * prose)}`,
    );
  });
});
