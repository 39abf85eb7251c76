import assert from 'node:assert/strict';
import {
  agentPrefix,
  buildCachedSummaryRequest,
  CACHED_SUMMARY_MARK,
  keptWords,
  nativeCompactionFor,
  nativeSummaryRequest,
} from '../../src/context/compaction';
import type { ModelCapabilities } from '../../src/providers/model-info';
import { user } from '../fixtures/fake-provider/factories';

/** When the summary step may be the provider's own compaction, and what it sends then. */

const caps = (contextManagement: string[]): ModelCapabilities => ({
  thinking: 'adaptive',
  efforts: [],
  thinkingOff: true,
  sampling: false,
  contextManagement,
});

describe('native compaction: the decision and the request', () => {
  const yes = { provider: 'anthropic' as const, capabilities: caps(['compact_20260112']), allowed: true, summarizerIsSessionModel: true };

  it('is used only on Anthropic, for a model that declares it, when allowed, with the session model summarizing', () => {
    assert.deepEqual(nativeCompactionFor(yes), { minTokens: 50_000 });
    assert.equal(nativeCompactionFor({ ...yes, allowed: false }), undefined, 'the setting turns it off');
    assert.equal(nativeCompactionFor({ ...yes, capabilities: caps(['clear_tool_uses_20250919']) }), undefined, 'not declared');
    assert.equal(nativeCompactionFor({ ...yes, capabilities: undefined }), undefined, 'capabilities unknown');
    assert.equal(nativeCompactionFor({ ...yes, provider: 'openai' }), undefined, 'another provider');
    assert.equal(nativeCompactionFor({ ...yes, summarizerIsSessionModel: false }), undefined, 'a summarizer model of its own');
  });

  it("sends the agent's prefix unchanged with the instruction as the compaction's instructions, never under the trigger", () => {
    const view = [user('fix the port'), user('and keep 8080')];
    const cached = buildCachedSummaryRequest(view, { model: 'm', system: [{ id: 's', text: 'sys' }], tools: [] }, { pins: ['pin A'] });
    const native = nativeSummaryRequest(cached, { minTokens: 50_000 }, 60_000);
    assert.ok(native);
    assert.deepEqual(native.messages, view, 'the conversation as the agent sent it');
    assert.equal(native.nativeCompaction?.triggerTokens, 50_000);
    assert.match(native.nativeCompaction?.instructions ?? '', /pin A/);
    assert.ok(!native.nativeCompaction?.instructions?.includes(CACHED_SUMMARY_MARK), 'the note meant for the agent model is left out');
    assert.equal(
      nativeSummaryRequest(cached, { minTokens: 50_000 }, 49_999),
      undefined,
      'a smaller prompt would be answered, not compacted',
    );
  });

  it("keeps the deferred tools of the agent's request, so results that loaded one by reference stay cached", () => {
    const tool = (name: string) => ({ name, description: name, inputSchema: { type: 'object' } });
    const agent = {
      model: 'm',
      system: [],
      messages: [user('hi')],
      tools: [tool('read_file')],
      deferredTools: [tool('mcp_a')],
      maxOutputTokens: 100,
    };
    const cached = buildCachedSummaryRequest([user('hi')], agentPrefix(agent, 200_000));
    assert.deepEqual(cached.tools, agent.tools);
    assert.deepEqual(cached.deferredTools, agent.deferredTools);
  });

  it("says on the card that the provider's compaction wrote the summary", () => {
    const change = { after: [user('last')], storedRefIds: [] };
    assert.equal(keptWords({ ...change, strategies: ['native_summary'] }), 'kept: summary (by the provider’s compaction) + the last turn');
    assert.equal(keptWords({ ...change, strategies: ['summary'] }), 'kept: summary + the last turn');
  });
});
