import assert from 'node:assert/strict';
import type { RecordedRequest } from '../fixtures/fake-provider/index';
import { createHarness, danglingCalls, textOf, type Harness } from '../fixtures/agent/harness';

/** The ref id of the last stored-result stub the model was shown. */
function refIdIn(req: RecordedRequest): string {
  const ids = [...JSON.stringify(req.body.messages).matchAll(/read_result ref_id=\\"(res_[0-9a-f]+)\\"/g)].map((m) => m[1]);
  assert.ok(ids.length > 0, 'the request shows a stored-result stub');
  return ids[ids.length - 1];
}

const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}: ${i % 7 === 0 ? 'needle' : 'hay'} ${'x'.repeat(20)}`).join('\n');

describe('agent loop: offloaded results and read_result', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('stores a large result behind a stub and pages and greps it through read_result', async () => {
    h = await createHarness({ files: { 'big.log': lines } });
    let refId = '';
    h.server.script.push(
      { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'big.log' } }] },
      (req) => {
        refId = refIdIn(req);
        return { toolCalls: [{ id: 'p1', name: 'read_result', arguments: { ref_id: refId, offset: 0, limit: 200 } }] };
      },
      (req) => ({
        toolCalls: [{ id: 'p2', name: 'read_result', arguments: { ref_id: refIdIn(req), grep: 'line 1(2|3)\\d\\d: needle', limit: 4000 } }],
      }),
      { text: 'Found the needles.' },
    );
    const r = await h.turn('look at big.log');
    assert.equal(r.reason, 'done');
    const results = h.view.filter((m) => m.role === 'toolResult');
    // 1. The big result is a bounded stub with a ref id, stored in full.
    assert.ok(results[0].refId);
    assert.ok(Buffer.byteLength(textOf(results[0])) < 1024, 'the stub is small');
    assert.match(textOf(results[0]), /^\[Tool result stored — [\d,]+ bytes from "read_file"/);
    assert.equal(h.results.size, 1);
    assert.ok(h.results.get(refId)!.includes('line 2000: hay'));
    // 2. A page: the first 200 bytes, and where the next page starts.
    const page = textOf(results[1]);
    assert.match(page, /bytes 0-200 of/);
    assert.match(page, /line 1: needle/);
    assert.match(page, /\[more: offset=200\]/);
    assert.equal(results[1].refId, undefined, 'a page is never stored again');
    // 3. Grep: only matching lines, with line numbers.
    const grep = textOf(results[2]);
    const matched = grep.split('\n').filter((l) => /^\d+: /.test(l));
    const expected = lines.split('\n').filter((l) => /line 1(2|3)\d\d: needle/.test(l));
    assert.equal(matched.length, expected.length);
    assert.ok(
      matched.every((l) => /^\d+: \d+\tline 1(2|3)\d\d: needle/.test(l)),
      matched[0],
    );
    assert.doesNotMatch(grep, /hay/);
    // The model saw the page and the matches.
    assert.match(JSON.stringify(h.server.requests[2].body.messages), /line 1: needle/);
    assert.match(JSON.stringify(h.server.requests[3].body.messages), /line 1205: needle/);
    assert.deepEqual(danglingCalls(h.view), []);
  });

  it('never lets a 1 MB single line into the context', async () => {
    h = await createHarness({ files: { 'one-line.min.js': 'a'.repeat(1024 * 1024) } });
    h.server.script.push({ toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'one-line.min.js' } }] }, { text: 'ok' });
    await h.turn('read it');
    const result = h.view.find((m) => m.role === 'toolResult')!;
    assert.ok(Buffer.byteLength(textOf(result)) < 1024);
    assert.ok(h.server.requests[1].inputTokens < 2000, `the second request stays small (${h.server.requests[1].inputTokens} tokens)`);
  });
});
