import assert from 'node:assert/strict';
import { z } from 'zod';
import { admitResult, buildStub, type ResultSizes } from '../../src/tools/admission';
import { createToolSearchTool } from '../../src/tools/builtin/tool-search';
import { readResultTool } from '../../src/tools/builtin/read-result';
import { defineTool } from '../../src/tools/define-tool';
import { ToolRegistry } from '../../src/tools/registry';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import type { ResultPort } from '../../src/tools/ports';
import { resultText, textResult } from '../../src/tools/tool-result';
import { call, makeContext } from '../fixtures/tools/tool-context';

const searchTool = createToolSearchTool({ search: () => [], activate: () => true });

const run = (text: string, name = 'run_command') => textResult({ id: 'call_1', name }, text);
const STUB =
  /^\[Tool result stored — ([\d,]+) bytes from "([a-z_]+)"\. First lines: ([\s\S]*)\] read_result ref_id="(res_[0-9a-f]+)" offset\/limit\/grep$/;

describe('tools: admission and offload', () => {
  it('keeps a small result inline, untouched', async () => {
    const store = createMemoryResultPort();
    const r = run('ok\n');
    assert.equal(await admitResult(r, { store }), r);
    assert.equal(store.size, 0);
  });

  it('offloads a result over 4 KiB and replaces it with the stub', async () => {
    const store = createMemoryResultPort();
    const text = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`).join('\n');
    const out = await admitResult(run(text), { store });
    const m = STUB.exec(resultText(out));
    assert.ok(m, resultText(out));
    assert.equal(m[1], Buffer.byteLength(text).toLocaleString('en-US'));
    assert.equal(m[2], 'run_command');
    assert.equal(m[3], 'line 1\nline 2\nline 3\nline 4\nline 5\n…');
    assert.equal(out.refId, m[4]);
    assert.equal(store.get(m[4]), text, 'the full output is stored');
    assert.equal(out.toolCallId, 'call_1');
    assert.equal(out.isError, false);
  });

  it('the stub matches the documented format', () => {
    assert.equal(
      buildStub('run_command', 48231, 'npm ci\nadded 3 packages', 'res_abc'),
      '[Tool result stored — 48,231 bytes from "run_command". First lines: npm ci\nadded 3 packages] read_result ref_id="res_abc" offset/limit/grep',
    );
  });

  it('offloads a small result the guard refuses, passing it the sizes', async () => {
    const store = createMemoryResultPort();
    const seen: ResultSizes[] = [];
    const out = await admitResult(run('x'.repeat(1000)), {
      store,
      admit: (s) => {
        seen.push(s);
        return 'offload';
      },
    });
    assert.deepEqual(
      seen.map((x) => ({ ...x, text: x.text.length })),
      [{ toolName: 'run_command', bytes: 1000, text: 1000 }],
    );
    assert.ok(out.refId);
    assert.equal(store.size, 1);
  });

  it('respects a custom threshold and keeps isError on an offloaded failure', async () => {
    const store = createMemoryResultPort();
    const failed = { ...run('e'.repeat(200)), isError: true };
    const out = await admitResult(failed, { store, thresholdBytes: 100 });
    assert.ok(out.refId);
    assert.equal(out.isError, true);
  });

  for (const [label, text] of [
    ['10 MB of many lines', 'build step output line with some text\n'.repeat((10 * 1024 * 1024) / 38)],
    ['a 1 MB single line', 'x'.repeat(1024 * 1024)],
    ['1 MB of CJK without newlines', '漢'.repeat(350_000)],
  ] as const) {
    it(`bounds the stub for ${label}`, async () => {
      const store = createMemoryResultPort();
      const out = await admitResult(run(text), { store });
      const stub = resultText(out);
      assert.match(stub, STUB);
      assert.ok(Buffer.byteLength(stub) <= 600, `stub is ${Buffer.byteLength(stub)} bytes`);
      assert.equal(store.get(out.refId as string)?.length, text.length);
    });
  }

  it('never offloads the output of a tool declared neverOffload; a page the guard refuses becomes advice to ask for less', async () => {
    const store = createMemoryResultPort();
    const page = run('p'.repeat(10_000), 'read_result');
    const neverOffload = (name: string) => [readResultTool, searchTool].find((t) => t.name === name)?.neverOffload === true;
    assert.equal(await admitResult(page, { store, neverOffload }), page, 'over the threshold but admitted: inline');
    const refused = await admitResult(page, { store, neverOffload, admit: () => 'offload' });
    assert.equal(refused.isError, true);
    assert.match(resultText(refused), /does not fit in the remaining context/);
    assert.equal(store.size, 0);
    assert.ok(neverOffload('tool_search'), 'tool_search declares it too');
    assert.ok((await admitResult(page, { store })).refId, 'without the flag the same page is stored');
  });

  it('the registry admits by the flag on the tool definition', async () => {
    const store = createMemoryResultPort();
    const echo = (name: string, neverOffload: boolean) =>
      defineTool({ name, description: 'echo', input: z.object({}), neverOffload, execute: () => Promise.resolve('e'.repeat(10_000)) });
    const registry = new ToolRegistry({ builtins: [echo('paged', true), echo('plain', false)], admission: { store } });
    const ctx = makeContext('/nonexistent-root');
    assert.equal((await registry.invoke(call('paged', {}), ctx)).refId, undefined);
    assert.ok((await registry.invoke(call('plain', {}), ctx)).refId);
  });

  it('never throws: a failing store or guard still yields a bounded result', async () => {
    const broken: ResultPort = {
      put: () => Promise.reject(new Error('disk full')),
      page: () => Promise.resolve(undefined),
    };
    const out = await admitResult(run('y'.repeat(2 * 1024 * 1024)), { store: broken });
    assert.match(resultText(out), /could not be stored \(disk full\)/);
    assert.ok(Buffer.byteLength(resultText(out)) < 800);
    assert.equal(out.refId, undefined);
    const guarded = await admitResult(run('small'), {
      store: createMemoryResultPort(),
      admit: () => {
        throw new Error('guard bug');
      },
    });
    assert.ok(guarded.refId, 'a broken guard offloads rather than inlining');
  });
});
