import assert from 'node:assert/strict';
import { contextEditingFor, providerClearing, sentUsage } from '../../src/context/compaction';
import { DEFAULT_THRESHOLDS } from '../../src/context/settings';
import type { ModelCapabilities } from '../../src/providers/model-info';
import { clearingText } from '../../src/panel/provider-clearing';
import { EDITING, toolConversation } from '../fixtures/agent/tool-conversation';

/** When a session's requests ask the provider to clear old tool uses itself, with what, and how its answer is judged. */

const caps = (contextManagement: string[]): ModelCapabilities => ({
  thinking: 'adaptive',
  efforts: [],
  thinkingOff: true,
  sampling: false,
  contextManagement,
});

describe('context editing: the decision and the judged answer', () => {
  const yes = {
    provider: 'anthropic' as const,
    capabilities: caps(['clear_thinking_20251015', 'clear_tool_uses_20250919']),
    allowed: true,
    refused: false,
    effectiveWindow: 100_000,
    thresholds: DEFAULT_THRESHOLDS,
    thinking: true,
    keptTools: ['read_result', 'search_history', 'read_result'],
  };

  it("triggers at the note threshold, keeps Headroom's newest results, clears at least the band to compact, never the kept tools", () => {
    assert.deepEqual(contextEditingFor(yes), {
      triggerTokens: 80_000,
      keepToolUses: 3,
      clearAtLeastTokens: 15_000,
      excludeTools: ['read_result', 'search_history'],
      clearToolInputs: false,
      clearThinking: true,
    });
    assert.equal(contextEditingFor({ ...yes, thinking: false })?.clearThinking, false, 'thinking off: no thinking edit');
    assert.equal(contextEditingFor({ ...yes, capabilities: caps(['clear_tool_uses_20250919']) })?.clearThinking, false);
  });

  it('is off unless Anthropic, declared, allowed and not refused earlier in the session', () => {
    assert.equal(contextEditingFor({ ...yes, allowed: false }), undefined, 'the setting turns it off');
    assert.equal(contextEditingFor({ ...yes, refused: true }), undefined, 'refused earlier');
    assert.equal(contextEditingFor({ ...yes, capabilities: caps(['compact_20260112']) }), undefined, 'not declared');
    assert.equal(contextEditingFor({ ...yes, capabilities: undefined }), undefined, 'capabilities unknown');
    assert.equal(contextEditingFor({ ...yes, provider: 'openai' }), undefined, 'another provider');
  });

  it('names the oldest uses it could clear, adds a plausible figure back to the usage, and doubts an implausible one', () => {
    const request = { messages: toolConversation(5), contextEditing: EDITING };
    const tokensOf = () => 400;
    const c = providerClearing(request, [{ kind: 'toolUses', cleared: 3, inputTokens: 1000 }], tokensOf);
    assert.ok(c);
    assert.deepEqual(
      c.toolUses.map((u) => u.target),
      ['src/file0.ts', 'src/file1.ts', 'src/file2.ts'],
    );
    assert.equal(c.tokens, 1000);
    const usage = { input: 10, output: 5, cacheRead: 3000, cacheWrite: 0 };
    assert.deepEqual(sentUsage(usage, c), { ...usage, input: 1010 }, 'the prompt as sent');
    const far = providerClearing(request, [{ kind: 'toolUses', cleared: 3, inputTokens: 1_000_000 }], tokensOf);
    assert.equal(far?.tokens, 0);
    assert.match(far?.doubt ?? '', /1M tokens reported cleared, ~1\.2k sent/);
    assert.deepEqual(sentUsage(usage, far), usage, 'a doubted figure is not added');
    assert.match(clearingText(far), /did not add up/);
    assert.equal(
      providerClearing({ messages: request.messages }, [{ kind: 'toolUses', cleared: 3, inputTokens: 10 }], tokensOf),
      undefined,
    );
  });
});
