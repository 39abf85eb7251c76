import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { admitResult } from '../../src/tools/admission';
import { READ_RESULT_MAX_LIMIT, readResultTool } from '../../src/tools/builtin/read-result';
import type { HeadroomPort } from '../../src/tools/ports';
import { resultText, textResult } from '../../src/tools/tool-result';
import { createHarness, type Harness } from '../fixtures/agent/harness';
import { fillTo } from '../fixtures/agent/fill';
import { call, makeContext } from '../fixtures/tools/tool-context';

const cjk = readFileSync(join(__dirname, '..', 'fixtures', 'corpus', 'ja-vite-docs.txt'), 'utf8');

/** A budget of `remaining` tokens where a result costs one token per 3 bytes. */
function budget(remaining: number): HeadroomPort & { compactions: number } {
  const b = {
    compactions: 0,
    remainingTokens: () => remaining,
    resultTokens: (text: string, _toolName?: string) => Math.ceil(Buffer.byteLength(text) / 3),
    requestCompaction: () => void b.compactions++,
  };
  return b;
}

async function stored(text: string) {
  const ctx = makeContext('/nonexistent-root');
  const stub = await admitResult(textResult({ id: 'c1', name: 'fetch_docs' }, text), { store: ctx.results });
  return { ctx, refId: stub.refId! };
}

describe('tools: read_result sizes its page to the live headroom', () => {
  it('returns what fits, says it was shortened, how much is left and where to go on', async () => {
    const { ctx, refId } = await stored(cjk);
    const b = budget(2_000);
    const out = resultText(
      await readResultTool.invoke(call('read_result', { ref_id: refId, offset: 0, limit: READ_RESULT_MAX_LIMIT }), { ...ctx, headroom: b }),
    );
    assert.ok(b.resultTokens(out, 'read_result') <= 2_000, `page of ${b.resultTokens(out, 'read_result')} tokens`);
    const header =
      /^\[ref_id="[^"]+" from "fetch_docs": bytes 0-(\d+) of [\d,]+; shortened to fit the remaining context \(asked for 32,000 bytes\)\]/.exec(
        out,
      );
    assert.ok(header, out.slice(0, 200));
    const end = Number(header[1]);
    assert.ok(end > 3_000, 'as much as fits, not a token page');
    const more = /\[more: offset=(\d+), ([\d,]+) bytes left\]$/.exec(out);
    assert.ok(more, out.slice(-100));
    assert.equal(Number(more[1]), end);
    assert.equal(Number(more[2].replace(/,/g, '')), Buffer.byteLength(cjk) - end);
    assert.equal(b.compactions, 0);
    // The next page starts where this one ended, and the two join without a gap.
    const next = resultText(
      await readResultTool.invoke(call('read_result', { ref_id: refId, offset: end, limit: 1_000 }), { ...ctx, headroom: b }),
    );
    assert.ok(Buffer.from(cjk).subarray(end).toString().startsWith(next.split('\n').slice(1, -1).join('\n').slice(0, 200)));
  });

  it('does the same for grep pages', async () => {
    const log = Array.from({ length: 3_000 }, (_, i) => `line ${i}: ERROR 外部サービスが応答しません (${i})`).join('\n');
    const { ctx, refId } = await stored(log);
    const b = budget(1_500);
    const out = resultText(
      await readResultTool.invoke(call('read_result', { ref_id: refId, grep: 'ERROR', limit: READ_RESULT_MAX_LIMIT }), {
        ...ctx,
        headroom: b,
      }),
    );
    assert.ok(b.resultTokens(out, 'read_result') <= 1_500);
    assert.match(out, /shortened to fit the remaining context/);
    assert.match(out, /\[more matches: offset=\d+\]$/);
  });

  it('asks for a compaction instead of refusing when not even a short page fits', async () => {
    const { ctx, refId } = await stored(cjk);
    const b = budget(40);
    const r = await readResultTool.invoke(call('read_result', { ref_id: refId, offset: 4_000, limit: 8_000 }), { ...ctx, headroom: b });
    assert.equal(r.isError, false);
    assert.equal(b.compactions, 1);
    assert.match(resultText(r), /compaction is scheduled before your next request; then call read_result again with offset=4000/);
  });

  describe('in the loop, near the compact threshold', () => {
    let h: Harness;
    afterEach(async () => h?.close());

    it('maximum-size pages of dense CJK are never refused, and the turn goes on through a compaction', async () => {
      h = await createHarness({ protocol: 'openai', window: 32_000 });
      const refId = await h.results.put({ toolName: 'fetch_docs', toolCallId: 'x', content: cjk.repeat(3) });
      h.server.script.push({ text: 'ready' });
      await h.turn('hello');
      await fillTo(h, 0.8);
      // The model reads maximum-size pages one after another (as the hostile test server did).
      let offset = 0;
      for (let i = 0; i < 6; i++) {
        h.server.script.push((req) => {
          const m = /offset=(\d+)/.exec(JSON.stringify(req.body).split('bytes left').slice(-2)[0] ?? '');
          offset = m && i > 0 ? Number(m[1]) : offset;
          return { toolCalls: [{ id: `r${i}`, name: 'read_result', arguments: { ref_id: refId, offset, limit: READ_RESULT_MAX_LIMIT } }] };
        });
      }
      h.server.script.push({ text: 'I have read the docs.' });
      const r = await h.turn('read the stored docs');
      assert.equal(r.reason, 'done', r.error?.message);
      const results = h.events.flatMap((e) => (e.type === 'tool_end' ? [resultText(e.result)] : []));
      assert.equal(results.length, 6);
      for (const text of results) assert.doesNotMatch(text, /does not fit in the remaining context/, 'no refusal');
      assert.ok(
        results.some((t) => /shortened to fit the remaining context/.test(t)),
        'pages were sized to the headroom',
      );
      assert.ok(
        h.events.some((e) => e.type === 'compaction'),
        'a nearly full context was compacted to make room for the next page',
      );
      assert.ok(h.server.requests.every((q) => q.outcome !== 'overflow'));
      assert.ok(!h.events.some((e) => e.type === 'turn_end' && e.reason === 'context_full'), 'no forced final answer');
    });
  });
});
