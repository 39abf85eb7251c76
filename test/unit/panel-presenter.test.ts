import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import type { ChatItem, ChatOp, HostToWebview } from '../../src/protocol/messages';
import { assistant, call, result, usageEvent, user } from './panel-factories';

function setup() {
  const posted: HostToWebview[] = [];
  let now = 1_000;
  const p = new ChatPresenter(
    (m) => posted.push(m),
    () => now,
  );
  const run = (...events: AgentEvent[]) => events.forEach((e) => p.handle(e));
  const ops = (): ChatOp[] => posted.flatMap((m) => (m.type === 'chat/ops' ? m.ops : []));
  const items = (): readonly ChatItem[] => p.transcript.items;
  return { p, posted, run, ops, items, tick: (ms: number) => (now += ms) };
}

const turnStart: AgentEvent = { type: 'turn_start', turnId: 't1', prompt: user('fix it') };

describe('panel: agent events become chat items and meter updates', () => {
  it('streams an answer: user item, assistant item, deltas, then the final text', () => {
    const s = setup();
    s.run(turnStart, { type: 'message_start', role: 'user', message: user('fix it') }, { type: 'message_start', role: 'assistant' });
    s.run({ type: 'message_delta', kind: 'text', delta: 'Hel' }, { type: 'message_delta', kind: 'text', delta: 'lo **there**' });
    assert.deepEqual(s.items()[1], { kind: 'assistant', id: s.items()[1].id, text: 'Hello **there**', streaming: true });
    s.run({ type: 'message_end', message: assistant('Hello **there**') }, { type: 'turn_end', turnId: 't1', reason: 'done', messages: [] });
    assert.deepEqual(
      s.items().map((i) => i.kind),
      ['user', 'assistant'],
    );
    assert.deepEqual(s.items()[1], { kind: 'assistant', id: s.items()[1].id, text: 'Hello **there**', streaming: false });
    assert.deepEqual(
      s.ops().map((o) => o.op),
      ['append', 'append', 'delta', 'delta', 'update'],
    );
    const states = s.posted.filter((m) => m.type === 'turn/state');
    assert.deepEqual(states, [
      { type: 'turn/state', running: true },
      { type: 'turn/state', running: false },
    ]);
  });

  it('shows a tool card from the first sign of the call to its result, with the duration and offloaded ref', () => {
    const s = setup();
    s.run(
      turnStart,
      { type: 'message_start', role: 'assistant' },
      { type: 'message_delta', kind: 'toolCall', toolCallId: 'c1', name: 'read_file' },
    );
    assert.equal((s.items()[1] as { status: string }).status, 'preparing');
    s.run({ type: 'message_end', message: assistant('', {}, [call('c1')]) });
    // a message made only of tool calls leaves no empty bubble
    assert.deepEqual(
      s.items().map((i) => i.kind),
      ['tool'],
    );
    const cardId = s.items()[0].id;
    s.run({ type: 'tool_start', call: call('c1') }, { type: 'tool_output', toolCallId: 'c1', chunk: 'partial…' });
    assert.deepEqual(s.items()[0], {
      kind: 'tool',
      id: cardId,
      name: 'read_file',
      summary: 'src/a.ts',
      args: '{\n  "path": "src/a.ts"\n}',
      status: 'running',
      output: 'partial…',
    });
    s.tick(250);
    s.run({
      type: 'tool_end',
      call: call('c1'),
      result: result('c1', '[stored as res_9: 12k tokens]', { refId: 'res_9' }),
      offloaded: true,
    });
    const card = s.items()[0];
    assert.equal(card.kind, 'tool');
    if (card.kind !== 'tool') return;
    assert.equal(card.status, 'done');
    assert.equal(card.durationMs, 250);
    assert.equal(card.refId, 'res_9');
    assert.equal(card.output, '[stored as res_9: 12k tokens]');
  });

  it('marks failed tools, and cancels unfinished ones when the turn is stopped', () => {
    const s = setup();
    s.run(
      turnStart,
      { type: 'tool_start', call: call('c1') },
      { type: 'tool_end', call: call('c1'), result: result('c1', 'ENOENT', { isError: true, errorKind: 'tool_failed' }), offloaded: false },
    );
    s.run({ type: 'tool_start', call: call('c2', 'run_command', { command: 'npm test' }) });
    s.run({ type: 'message_start', role: 'assistant' }, { type: 'message_delta', kind: 'text', delta: 'half' });
    s.run({ type: 'turn_end', turnId: 't1', reason: 'aborted', messages: [] });
    const [c1, c2, a] = s.items();
    assert.equal(c1.kind === 'tool' && c1.status, 'error');
    assert.equal(c2.kind === 'tool' && c2.status, 'stopped', 'the user stopped it: a decision, not a failure');
    assert.equal(c2.kind === 'tool' && c2.summary, 'npm test');
    assert.equal(a.kind === 'assistant' && a.streaming, false);
    assert.equal(s.p.isRunning, false);
  });

  it('caps streamed tool output at the preview size', () => {
    const s = setup();
    s.run(turnStart, { type: 'tool_start', call: call('c1') });
    for (let i = 0; i < 50; i++) s.run({ type: 'tool_output', toolCallId: 'c1', chunk: 'x'.repeat(100) });
    const card = s.items()[0];
    assert.equal(card.kind === 'tool' && card.output.length, 2_000);
  });

  it('counts down a retry, then removes the notice when the answer arrives', () => {
    const s = setup();
    s.run(
      turnStart,
      { type: 'message_start', role: 'assistant' },
      { type: 'retry', attempt: 2, delayMs: 5_000, error: { kind: 'rate_limit', message: 'Rate limited by the provider.' } },
    );
    assert.deepEqual(s.items()[1], {
      kind: 'notice',
      id: s.items()[1].id,
      level: 'warning',
      text: 'Rate limited by the provider.',
      retryAt: 6_000,
      attempt: 2,
    });
    s.run({ type: 'message_delta', kind: 'text', delta: 'Hi' });
    assert.deepEqual(
      s.items().map((i) => i.kind),
      ['assistant'],
    );
  });

  it('shows errors a person can act on, but not the abort the user asked for', () => {
    const s = setup();
    s.run(
      { type: 'error', kind: 'auth', message: 'The API key was rejected. Run "Headroom: Set API Key".' },
      { type: 'error', kind: 'aborted', message: 'aborted' },
    );
    assert.deepEqual(
      s.items().map((i) => i.kind === 'notice' && i.level),
      ['error'],
    );
  });

  it('explains a turn that ended for the context or iteration limit', () => {
    const s = setup();
    s.run(turnStart, { type: 'turn_end', turnId: 't1', reason: 'context_full', messages: [] });
    assert.match((s.items()[0] as { text: string }).text, /context is full/);
  });

  it('moves the meter after every context_usage, and shows "freed" after a compaction', () => {
    const s = setup();
    s.run(usageEvent({ messages: 10_000 }));
    s.run(usageEvent({ messages: 12_000, toolResults: 30_000 }));
    const meters = s.posted.filter((m) => m.type === 'context/usage');
    assert.deepEqual(
      meters.map((m) => m.type === 'context/usage' && m.meter.used),
      [10_000, 42_000],
    );
    s.tick(1_000);
    s.run({
      type: 'compaction',
      report: {
        beforeTokens: 150_000,
        afterTokens: 33_000,
        beforeMessages: 80,
        afterMessages: 6,
        strategies: ['clear tool results', 'summary'],
        durationMs: 900,
        trigger: 'threshold',
      },
    });
    const compaction = s.items().find((i) => i.kind === 'compaction');
    assert.ok(compaction && compaction.kind === 'compaction');
    assert.equal(compaction.freedTokens, 117_000);
    // Plain words: no internal strategy names.
    assert.match(compaction.text, /^Compacted automatically: 150k → 33k tokens, freed 117k\./);
    assert.doesNotMatch(compaction.text, /clear tool results|summary/);
    const last = s.posted.at(-1);
    assert.ok(last?.type === 'context/usage');
    assert.deepEqual(last.meter.freed, { label: 'freed 117k', at: 2_000 });
  });

  it('keeps the whole view for a snapshot, and replaces it when a session is loaded', () => {
    const s = setup();
    s.run(turnStart, { type: 'message_start', role: 'user', message: user('hi') }, usageEvent({ messages: 500 }));
    const v = s.p.view();
    assert.equal(v.running, true);
    assert.equal(v.items.length, 1);
    assert.equal(v.meter?.used, 500);
    s.p.load([user('older'), assistant('answer')]);
    assert.deepEqual(
      s.p.view().items.map((i) => i.kind),
      ['user', 'assistant'],
    );
  });

  it('survives a malformed event without throwing', () => {
    const s = setup();
    assert.doesNotThrow(() => s.p.handle({ type: 'tool_end' } as unknown as AgentEvent));
    assert.doesNotThrow(() => s.p.handle({ type: 'not_an_event' } as unknown as AgentEvent));
  });
});
