import assert from 'node:assert/strict';
import { createContextGate } from '../../src/agent/context-gate';
import { Calibration } from '../../src/context/calibration';
import { resolveModelLimits } from '../../src/context/models';
import { TokenLedger } from '../../src/context/token-ledger';
import type { AssistantMessage, Message } from '../../src/providers/types';
import { user } from '../fixtures/context/factories';
import { inProcessCounter } from '../fixtures/context/in-process-counter';

const usage = (input: number) => ({ input, output: 10, cacheRead: 0, cacheWrite: 0 });

describe('context calibration: per model and per content class', () => {
  it('a factor learned on English never lowers the estimate of CJK text (the 114 % request measured on a CJK session)', () => {
    const cal = new Calibration();
    // English requests that the provider counts 30 % lower than we do.
    for (let i = 0; i < 4; i++) cal.observeClasses('m', { prose: 10_000 }, usage(7_000));
    assert.ok(cal.factorFor('m', 'prose') < 0.75, String(cal.factorFor('m', 'prose')));
    assert.equal(cal.factorFor('m', 'cjk'), 1, 'an unlearned class is never scaled down');
    assert.equal(cal.factorFor('m', undefined), 1);
  });

  it('a factor above 1 learned on one class raises the classes not yet learned (never lowers)', () => {
    const cal = new Calibration();
    cal.observeClasses('m', { code: 10_000 }, usage(13_000));
    assert.ok(Math.abs(cal.factorFor('m', 'code') - 1.3) < 1e-9);
    assert.ok(cal.factorFor('m', 'cjk') >= 1.3);
  });

  it('learns the dominant class given the others, and a mixed request can only raise', () => {
    const cal = new Calibration();
    cal.observeClasses('m', { prose: 2_000 }, usage(2_000)); // prose = 1
    cal.observeClasses('m', { cjk: 8_000, prose: 2_000 }, usage(2_000 + 12_000)); // cjk carries the difference
    assert.ok(Math.abs(cal.factorFor('m', 'cjk') - 1.5) < 1e-9, String(cal.factorFor('m', 'cjk')));
    const before = { cjk: cal.factorFor('m', 'cjk'), prose: cal.factorFor('m', 'prose') };
    cal.observeClasses('m', { cjk: 4_000, prose: 3_000, code: 3_000 }, usage(5_000)); // over-counted mix: no change
    assert.deepEqual({ cjk: cal.factorFor('m', 'cjk'), prose: cal.factorFor('m', 'prose') }, before);
    cal.observeClasses('m', { cjk: 4_000, prose: 3_000, code: 3_000 }, usage(20_000)); // under-counted mix: raise
    assert.ok(cal.factorFor('m', 'prose') > before.prose && cal.factorFor('m', 'cjk') > before.cjk);
  });

  it('persists and restores per-class states', () => {
    const cal = new Calibration();
    cal.observeClasses('m', { dense: 5_000 }, usage(6_000));
    const restored = new Calibration(cal.toJSON());
    assert.equal(restored.factorFor('m', 'dense'), cal.factorFor('m', 'dense'));
    assert.equal(restored.isCalibrated('m', 'dense'), true);
  });

  it('the gate learns per class from provider usage and scales each message by its own class', async () => {
    const limits = resolveModelLimits('gpt-4o', 'openai', { models: {}, providers: {}, bufferFraction: 0.02 });
    const ledger = new TokenLedger(inProcessCounter());
    const gate = createContextGate({ limits, ledger });
    const english: Message[] = [user('The agent reads the file and explains what it found, step by step. '.repeat(300))];
    const cjk = user('上下文窗口不会溢出，也不会悄悄遗忘。'.repeat(300));
    await Promise.all([...english, cjk].map((m) => ledger.countExact(m, 'o200k')));
    const cjkBefore = gate.tokensOf(cjk);
    const reply = {
      role: 'assistant',
      content: [],
      provider: 'openai',
      model: 'gpt-4o',
      usage: usage(Math.round(gate.measure(english).used * 0.6)),
      stopReason: 'end',
      timestamp: 0,
    } as AssistantMessage;
    gate.observe!({ model: 'gpt-4o', system: [], messages: english, tools: [], maxOutputTokens: 100 }, reply);
    assert.ok(gate.tokensOf(english[0]) < ledger.count(english[0], 'o200k').tokens, 'English is scaled down');
    assert.equal(gate.tokensOf(cjk), cjkBefore, 'CJK is not');
    ledger.dispose();
  });

  it("a minority class never calibrated does not push its over-count onto the dominant class's factor", () => {
    // Prose is counted 1.75 × what the provider counts, so is the code beside it (not yet calibrated):
    // the provider reports 4,000 for 7,000 estimated. Prose learns 4/7, not (4,000 − 2,100 × 1) / 4,900.
    const cal = new Calibration();
    cal.observeClasses('m', { prose: 4_900, code: 2_100 }, usage(4_000));
    const f = cal.factorFor('m', 'prose');
    assert.ok(Math.abs(f - 4_000 / 7_000) < 0.01, `prose factor ${f}`);
    assert.equal(cal.isCalibrated('m', 'code'), false, 'code learned nothing');
    assert.ok(cal.factorFor('m', 'code') >= 1, "and is not lowered by prose's factor");
  });

  it("Claude: a class's factor learned on the worker's figures applies to an estimate on the worker's scale", async () => {
    // The worker's Claude figure is o200k × the class factor (1.75 for prose); the provider counts 1.15 × o200k,
    // so prose learns ~0.66. A message the worker has not counted yet is a tighter estimate (~1 × o200k):
    // scaled by 0.66 as it was, it under-counted the provider by a third.
    const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic', { models: {}, providers: {}, bufferFraction: 0.02 });
    const ledger = new TokenLedger(inProcessCounter());
    const gate = createContextGate({ limits, ledger });
    const o200k = (await import('../fixtures/fake-provider/tokens')).encodeTokens;
    const text = (seed: number) =>
      Array.from({ length: 400 }, (_, i) => `step ${seed}.${i}: the agent reads the file and explains it`).join('\n');
    const seen: Message[] = [user(text(1))];
    await ledger.countExact(seen[0], 'claude');
    const truth = (m: Message) => Math.ceil(o200k((m.content[0] as { text: string }).text).length * 1.15);
    const reply = {
      role: 'assistant',
      content: [],
      provider: 'anthropic',
      model: limits.model,
      usage: usage(truth(seen[0])),
      stopReason: 'end',
      timestamp: 0,
    } as AssistantMessage;
    gate.observe!({ model: limits.model, system: [], messages: seen, tools: [], maxOutputTokens: 100 }, reply);
    assert.ok(gate.tokensOf(seen[0]) < ledger.count(seen[0], 'claude').tokens, "the worker's figure is scaled down");
    const fresh = user(text(2)); // not counted by the worker yet: an estimate
    assert.equal(ledger.count(fresh, 'claude').exact, false);
    assert.ok(gate.tokensOf(fresh) >= truth(fresh), `estimate ${gate.tokensOf(fresh)} under the provider's ${truth(fresh)}`);
    ledger.dispose();
  });
});
