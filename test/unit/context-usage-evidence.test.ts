import assert from 'node:assert/strict';
import { AT_WINDOW, FAR_ABOVE, UsageEvidence, type ReportInput } from '../../src/context/usage-evidence';
import { MAX_REPORTED_TOKENS } from '../../src/providers/usage';
import type { Message, ProviderRequest } from '../../src/providers/types';
import { user } from '../fixtures/fake-provider/factories';

const MODEL = 'local-model';

function request(messages: Message[], note?: string): ProviderRequest {
  return {
    model: MODEL,
    system: [{ id: 'base', text: 'system' }],
    messages,
    tools: [],
    maxOutputTokens: 1000,
    ...(note ? { trailingNote: note } : {}),
  };
}

function input(over: Partial<ReportInput> & Pick<ReportInput, 'reported' | 'estimate' | 'request'>): ReportInput {
  return { model: MODEL, noteTokens: 0, output: 50, contextWindow: 8192, counted: over.estimate, ...over };
}

const truncating = { truncates: true, uncachedUsage: false };

/** A reported prompt count is evidence, not truth: what may become the base and calibrate. */
describe('context: a usage figure is judged before it is used', () => {
  it('a figure far above anything a tokenizer explains is not used, whatever the provider (190,000 for a 1.7k prompt, 1e308)', () => {
    const e = new UsageEvidence();
    const small = request([user('hello')]);
    const absurd = e.judge(input({ reported: 190_000, estimate: 1_700, request: small, contextWindow: 200_000 }));
    assert.deepEqual([absurd.confirm, absurd.calibrate, absurd.doubt, absurd.truncation], [false, false, 'far-above', false]);
    const clamped = e.judge(input({ reported: MAX_REPORTED_TOKENS, estimate: 1_700, request: small, contextWindow: 200_000 }));
    assert.equal(clamped.doubt, 'far-above');
    // A harsh tokenizer (Llama 2 on Chinese: 1.9× o200k) is not far above.
    const harsh = e.judge(input({ reported: 3_300, estimate: 1_700, request: small, contextWindow: 200_000 }));
    assert.deepEqual([harsh.confirm, harsh.calibrate, harsh.doubt], [true, true, undefined]);
    assert.ok(FAR_ABOVE >= 2.5);
  });

  it('a figure under half the estimate is not used; from a server that truncates it means the conversation may have been cut', () => {
    const vendor = new UsageEvidence().judge(input({ reported: 700, estimate: 1_700, request: request([user('a')]) }));
    assert.deepEqual([vendor.confirm, vendor.doubt, vendor.truncation], [false, 'far-below', false]);
    const local = new UsageEvidence().judge(input({ reported: 700, estimate: 1_700, request: request([user('a')]), server: truncating }));
    assert.deepEqual([local.confirm, local.doubt, local.truncation], [false, 'far-below', true]);
  });

  it("a truncating server's figure at its context is possibly truncated; a refusing server's is not", () => {
    const near = Math.ceil(AT_WINDOW * 8192);
    const lm = new UsageEvidence().judge(input({ reported: near, estimate: 6_000, request: request([user('a')]), server: truncating }));
    assert.deepEqual([lm.confirm, lm.doubt, lm.truncation], [false, 'at-window', true]);
    const refusing = new UsageEvidence().judge(
      input({ reported: near, estimate: 6_000, request: request([user('a')]), server: { truncates: false, uncachedUsage: false } }),
    );
    assert.equal(refusing.confirm, true);
  });

  it('a figure that does not grow when the conversation grew is not used', () => {
    const e = new UsageEvidence();
    const first = [user('question')];
    assert.equal(e.judge(input({ reported: 2_400, estimate: 2_000, request: request(first), server: truncating })).confirm, true);
    const grown = [...first, user('a large read '.repeat(200))];
    const v = e.judge(input({ reported: 2_500, estimate: 5_000, request: request(grown), server: truncating }));
    assert.deepEqual([v.confirm, v.doubt, v.truncation], [false, 'not-growing', true]);
    // Growing with the conversation is fine, and the comparison is with the last figure used.
    const ok = e.judge(input({ reported: 6_000, estimate: 5_000, request: request(grown), server: truncating }));
    assert.deepEqual([ok.confirm, ok.doubt], [true, undefined]);
  });

  it('one figure below the estimate never calibrates downwards; a second one that agrees does', () => {
    const e = new UsageEvidence();
    const m1 = [user('one')];
    const first = e.judge(input({ reported: 1_400, estimate: 2_000, request: request(m1) }));
    assert.deepEqual([first.confirm, first.calibrate], [true, false], 'a vendor counted that very request: the base, not a factor');
    const m2 = [...m1, user('two '.repeat(100))];
    const second = e.judge(input({ reported: 1_600, estimate: 2_300, request: request(m2) }));
    assert.deepEqual([second.confirm, second.calibrate], [true, true]);
    // On a silently truncating server a low figure waits for a second one before it is the base too.
    const local = new UsageEvidence().judge(input({ reported: 1_400, estimate: 2_000, request: request(m1), server: truncating }));
    assert.deepEqual([local.confirm, local.calibrate], [false, false]);
  });

  it('a count without the cached prefix (Ollama 0.30.0) gets the prefix back from the request it continues', () => {
    const e = new UsageEvidence();
    const server = { truncates: false, uncachedUsage: true };
    const m1 = [user('question')];
    // What the server had cached before the first request is unknown: Headroom's own count stands in.
    const first = e.judge(input({ reported: 2_200, estimate: 2_000, counted: 2_300, request: request(m1), output: 120, server }));
    assert.deepEqual([first.confirm, first.calibrate, first.doubt, first.truncation], [false, false, 'partial', false]);
    const m2 = [...m1, user('tool result '.repeat(300))];
    const warm = e.judge(input({ reported: 1_500, estimate: 3_300, request: request(m2), output: 60, server }));
    assert.deepEqual([warm.total, warm.confirm], [2_300 + 120 + 1_500, true], 'the last total, the reply it kept, what it evaluated');
    // A first figure above Headroom's count is a floor: the request was at least that.
    const e2 = new UsageEvidence();
    e2.judge(input({ reported: 2_900, estimate: 2_000, counted: 2_300, request: request(m1), output: 120, server }));
    assert.equal(e2.judge(input({ reported: 1_500, estimate: 3_300, request: request(m2), server })).total, 2_900 + 120 + 1_500);
    // A request with a note: the server's cache ended where the note started, and the reply was evaluated again.
    const m3 = [...m2, user('more')];
    const withNote = e.judge(
      input({ reported: 200, estimate: 3_500, request: request(m3, '[Context: 85 % used.]'), noteTokens: 12, output: 80, server }),
    );
    assert.equal(withNote.total, warm.total + 60 + 200);
    const m4 = [...m3, user('again')];
    const afterNote = e.judge(input({ reported: 150, estimate: 3_600, request: request(m4), server }));
    assert.equal(afterNote.total, withNote.total - 12 + 150);
    // After a compaction the truth lies between the figure (nothing cached: a summary request may have
    // replaced the cache) and the figure plus what the two requests share (all of it cached).
    const compact = (counted: number, firstCounted = 2_200) => {
      const fresh = new UsageEvidence();
      fresh.judge(input({ reported: 2_200, estimate: 2_000, counted: firstCounted, request: request(m1), server }));
      return fresh.judge(
        input({ reported: 600, estimate: 1_200, counted, request: request([user('summary')]), server, shared: () => 700 }),
      );
    };
    assert.deepEqual(
      [compact(1_500).total, compact(1_500).confirm, compact(1_500).calibrate],
      [1_300, true, false],
      'near the unshared part: all of the shared part was cached',
    );
    assert.equal(compact(700).total, 600, 'near the whole request: the server evaluated it all');
    // Headroom's count of the first request fell 10 % short of what the server evaluated of it: so does its count of the shared part.
    assert.equal(compact(1_500, 2_000).total, 600 + 770);
  });
});
