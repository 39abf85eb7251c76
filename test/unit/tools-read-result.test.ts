import assert from 'node:assert/strict';
import { readResultTool } from '../../src/tools/builtin/read-result';
import { admitResult } from '../../src/tools/admission';
import { pageBuffer } from '../../src/tools/result-paging';
import { bufferSource, pageSource } from '../../src/tools/result-port';
import { resultText, textResult } from '../../src/tools/tool-result';
import { call, makeContext } from '../fixtures/tools/tool-context';

describe('tools: read_result paging and grep', () => {
  const lines = Array.from({ length: 1000 }, (_, i) => (i % 100 === 0 ? `ERROR at step ${i}` : `ok step ${i}`));
  const text = lines.join('\n');

  async function stored() {
    const ctx = makeContext('/nonexistent-root');
    const stub = await admitResult(textResult({ id: 'c1', name: 'run_command' }, text), { store: ctx.results });
    assert.ok(stub.refId);
    return { ctx, refId: stub.refId };
  }

  it('pages through the stored result by bytes and reassembles it exactly', async () => {
    const { ctx, refId } = await stored();
    let offset = 0;
    let joined = '';
    for (let i = 0; i < 100; i++) {
      const r = await readResultTool.invoke(call('read_result', { ref_id: refId, offset, limit: 3000 }), ctx);
      const out = resultText(r);
      const header = /^\[ref_id="[^"]+" from "run_command": bytes (\d+)-(\d+) of ([\d,]+)\]\n/.exec(out);
      assert.ok(header, out.slice(0, 100));
      assert.equal(Number(header[1]), offset);
      const next = /\n\[more: offset=(\d+)\]$/.exec(out);
      const body = out.slice(header[0].length, next ? next.index : out.length - '\n[end of result]'.length);
      joined += body;
      if (!next) break;
      offset = Number(next[1]);
    }
    assert.equal(joined, text);
  });

  it('greps with line numbers and pages over matches', async () => {
    const { ctx, refId } = await stored();
    const first = resultText(await readResultTool.invoke(call('read_result', { ref_id: refId, grep: 'error', limit: 70 }), ctx));
    assert.equal(
      first,
      `[ref_id="${refId}" from "run_command": matches 1-3 of 10 for /error/]\n1: ERROR at step 0\n101: ERROR at step 100\n201: ERROR at step 200\n[more matches: offset=3]`,
    );
    const last = resultText(await readResultTool.invoke(call('read_result', { ref_id: refId, grep: 'error', offset: 9 }), ctx));
    assert.match(last, /matches 10-10 of 10/);
    assert.match(last, /\n901: ERROR at step 900\n\[no more matches\]$/);
    const none = resultText(await readResultTool.invoke(call('read_result', { ref_id: refId, grep: 'panic' }), ctx));
    assert.match(none, /no line matches \/panic\//);
  });

  it('reports an unknown ref_id and bad arguments to the model', async () => {
    const ctx = makeContext('/nonexistent-root');
    const r = await readResultTool.invoke(call('read_result', { ref_id: 'res_missing' }), ctx);
    assert.equal(r.isError, true);
    assert.match(resultText(r), /No stored result with ref_id="res_missing"/);
    const bad = await readResultTool.invoke(call('read_result', { ref_id: 'x', limit: 10_000_000 }), ctx);
    assert.equal(bad.errorKind, 'invalid_tool_input');
    assert.match(resultText(bad), /- limit:/);
  });

  it('never splits a UTF-8 character and always makes progress', () => {
    const buf = Buffer.from('aé漢😀b', 'utf8'); // 1 + 2 + 3 + 4 + 1 bytes
    const pages: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const p = pageBuffer(buf, { offset, limit: 2 });
      pages.push(p.text);
      offset = p.nextOffset;
    }
    assert.equal(pages.join(''), 'aé漢😀b');
    assert.ok(pages.every((p) => !p.includes('\uFFFD')));
    const mid = pageBuffer(buf, { offset: 4, limit: 100 }); // inside 漢: moves to the next character
    assert.equal(mid.text, '😀b');
    assert.equal(pageBuffer(buf, { offset: 99, limit: 10 }).text, '');
  });

  it('shortens very long matching lines in grep pages', () => {
    const p = pageBuffer(Buffer.from('x'.repeat(100_000) + ' needle'), { offset: 0, limit: 4000, grep: 'needle' });
    assert.equal(p.totalMatches, 1);
    assert.ok(p.text.length < 600);
    assert.match(p.text, /^1: x+… \[99507 more chars\]$/);
  });

  it('pageSource gives any ranged source the same paging, reading only the page for a byte page', async () => {
    const content = Buffer.from(text, 'utf8');
    const reads: Array<[number, number]> = [];
    const source = {
      ...bufferSource(content, 'run_command'),
      read: (start: number, end: number) => (reads.push([start, end]), Promise.resolve(content.subarray(start, end))),
    };
    assert.deepEqual(await pageSource(source, { offset: 3, limit: 5 }), pageBuffer(content, { offset: 3, limit: 5 }, 'run_command'));
    assert.equal((await pageSource(source, { offset: 3, limit: 5 })).text, 'OR at');
    assert.ok(
      reads.every(([start, end]) => start === 3 && end - start <= 5 + 4),
      JSON.stringify(reads),
    );
    const grep = await pageSource(source, { offset: 0, limit: 10_000_000, grep: 'error' });
    assert.deepEqual(grep, pageBuffer(content, { offset: 0, limit: 10_000_000, grep: 'error' }, 'run_command'));
    assert.equal(grep.totalMatches, 10);
  });
});
