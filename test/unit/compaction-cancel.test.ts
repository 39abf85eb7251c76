import assert from 'node:assert/strict';
import { CompactionRunner, createCompactionChain, type ChainResult } from '../../src/agent/compaction';
import type { CompactInput } from '../../src/agent/compact-hook';
import type { AgentEvent } from '../../src/agent/events';
import type { Provider } from '../../src/providers/provider';
import type { Message, StreamEvent } from '../../src/providers/types';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { a, filler, r, tokensOf, u } from '../fixtures/compaction/factories';

const WINDOW = 20_000;
const input = (messages: Message[], over: Partial<CompactInput> = {}): CompactInput => ({
  messages,
  tokensOf,
  targetTokens: Math.floor(0.3 * WINDOW),
  trigger: 'manual',
  effectiveWindow: WINDOW,
  ...over,
});

/** Five turns that read files, then plain conversation (so clearing results alone is not enough). */
function talk(turns = 10): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 5; i++) out.push(u(`read ${i}`), a('', [{ id: `c${i}` }]), r(`c${i}`, filler(3000, `r${i}`)), a(`read ${i} done`));
  for (let i = 0; i < turns; i++) out.push(u(`question ${i}: ${filler(2500, `q${i}`)}`), a(`answer ${i}: ${filler(2500, `a${i}`)}`));
  return out;
}

/** A summarizer whose request hangs until it is aborted; `asked` resolves when the request arrives. */
function hangingSummarizer(): { provider: Provider; asked: Promise<void>; aborted: () => boolean } {
  let arrived!: () => void;
  const asked = new Promise<void>((r) => (arrived = r));
  let wasAborted = false;
  const provider: Provider = {
    id: 'anthropic',
    async *stream(req, signal): AsyncIterable<StreamEvent> {
      arrived();
      await new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      wasAborted = signal?.aborted ?? false;
      yield {
        type: 'done',
        message: {
          role: 'assistant',
          content: [],
          provider: 'anthropic',
          model: req.model,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          stopReason: 'aborted',
          error: { kind: 'aborted', message: 'aborted' },
          timestamp: 0,
        },
      };
    },
  };
  return { provider, asked, aborted: () => wasAborted };
}

describe('compaction: visible and cancellable', () => {
  it('reports the start with how many messages it will summarize, and the end with what changed', async () => {
    const events: AgentEvent[] = [];
    const runner = new CompactionRunner((e) => events.push(e));
    const view = talk();
    const after = [u('kept')];
    const pass: ChainResult = {
      messages: after,
      strategies: ['summary'],
      summary: 'S',
      trigger: 'manual',
      beforeTokens: 1,
      afterTokens: 1,
      beforeMessages: view.length,
      afterMessages: 1,
      durationMs: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      targetTokens: 0,
      reachedTarget: true,
      freedShare: 0,
      clearedRefIds: ['r1'],
      notes: [],
    };
    const out = await runner.run(input(view), undefined, () => Promise.resolve(pass));
    assert.equal(out, pass);
    const [start, end] = events;
    assert.ok(start.type === 'compaction_start' && start.trigger === 'manual');
    assert.ok(start.summarizing > 0 && start.summarizing < view.length, `summarizing ${start.summarizing} of ${view.length}`);
    assert.ok(end.type === 'compaction_end' && end.outcome === 'done');
    assert.equal(end.change?.before, view);
    assert.equal(end.change?.after, after);
    assert.deepEqual(end.change?.storedRefIds, ['r1']);
    assert.equal(runner.running, false);
  });

  it('Cancel aborts the summary request, and the pass yields nothing: the view and the store stay as they were', async () => {
    const events: AgentEvent[] = [];
    const runner = new CompactionRunner((e) => events.push(e));
    const summarizer = hangingSummarizer();
    const reports: Array<{ aborting: boolean }> = [];
    const chain = createCompactionChain({
      summarizer: summarizer.provider,
      summarizerModel: 'm',
      results: createMemoryResultPort(),
      // What the session host persists: it must be able to tell that the pass is being cancelled.
      onReport: () => reports.push({ aborting: runner.aborting }),
    });
    const view = talk();
    const copy = structuredClone(view);
    const running = runner.run(input(view), undefined, (signal) => chain.run(input(view), signal));
    await summarizer.asked;
    assert.equal(runner.running, true);
    assert.equal(runner.cancel(), true);
    assert.equal(await running, undefined);
    assert.ok(summarizer.aborted(), 'the summary request saw the abort');
    assert.deepEqual(view, copy, 'the view is untouched');
    // Clearing old results happened before the cancel, so the chain reports a pass: the host must see
    // that it is being cancelled, and not persist it.
    assert.deepEqual(reports, [{ aborting: true }]);
    assert.deepEqual(
      events.map((e) => (e.type === 'compaction_end' ? `end:${e.outcome}` : e.type)),
      ['compaction_start', 'end:cancelled'],
    );
    assert.equal(runner.running, false);
    assert.equal(runner.lastOutcome, 'cancelled', 'the host tells a cancel from "nothing to compact"');
    assert.equal(runner.cancel(), false, 'nothing left to cancel');
  });

  it('a stopped turn cancels its automatic compaction the same way', async () => {
    const events: AgentEvent[] = [];
    const runner = new CompactionRunner((e) => events.push(e));
    const summarizer = hangingSummarizer();
    const chain = createCompactionChain({ summarizer: summarizer.provider, summarizerModel: 'm', results: createMemoryResultPort() });
    const turn = new AbortController();
    const view = talk();
    const running = runner.run(input(view, { trigger: 'threshold' }), turn.signal, (s) =>
      chain.run(input(view, { trigger: 'threshold' }), s),
    );
    await summarizer.asked;
    turn.abort();
    assert.equal(await running, undefined);
    const end = events.at(-1);
    assert.ok(end?.type === 'compaction_end' && end.outcome === 'cancelled');
  });

  it('a pass that changes nothing ends with "nothing"', async () => {
    const events: AgentEvent[] = [];
    const runner = new CompactionRunner((e) => events.push(e));
    assert.equal(await runner.run(input([u('hi')]), undefined, () => Promise.resolve(undefined)), undefined);
    const end = events.at(-1);
    assert.ok(end?.type === 'compaction_end' && end.outcome === 'nothing');
  });
});
