/**
 * A model-supplied pattern gets one wall-clock budget per tool call, in the pattern worker, and the
 * session has one worker at a time. Before: read_result's grep on a `msg_<seq>` reference ran on the
 * host thread (a 26-character line blocked every extension for 24 s); a glob's per-file progress reset
 * its limit (one call ran 60 s); a grep over a multi-chunk result ran chunk after chunk; parallel calls
 * each took a worker. These tests assert outcomes (stopped or not, the host thread ticking, threads
 * alive), never a tight wall-clock figure: the figures are in bench/untrusted-input.bench.ts.
 */
import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import { listFilesTool } from '../../src/tools/builtin/list-files';
import { readResultTool } from '../../src/tools/builtin/read-result';
import { withMessageRefs } from '../../src/tools/message-refs';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { PatternBudget, PatternLane, runPatternJob } from '../../src/tools/pattern-runner';
import { startGrep } from '../../src/tools/result-paging';
import { bufferSource, pageSource } from '../../src/tools/result-port';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

/** Counts event-loop ticks while `work` runs: a blocked thread gets none. */
async function withTicks<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 50);
  const started = Date.now();
  try {
    return { value: await work(), ticks, ms: Date.now() - started };
  } finally {
    clearInterval(timer);
  }
}

/** OS threads of this process (Linux), or undefined elsewhere. */
function threads(): number | undefined {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

const evil = (n: number) => `${'a'.repeat(n)}!`;
const stopped = /took longer than [\d.]+ s and was stopped/;

describe('security: one budget per call for model-supplied patterns', function () {
  this.timeout(120_000);
  let root: string;

  before(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f${i}/${'a'.repeat(40)}`] = 'x\n';
    root = await tempWorkspace(files);
  });
  after(() => removeDir(root));

  it('read_result greps a msg_<seq> reference in the worker: the host thread keeps running', async () => {
    const line = evil(27); // 2^27 backtracking paths for (a+)+$
    const base = makeContext(root);
    const ctx = {
      ...base,
      results: withMessageRefs(base.results, (seq) =>
        Promise.resolve(
          seq === 7
            ? { seq, turn: 2, message: { role: 'user' as const, content: [{ type: 'text' as const, text: `ok\n${line}` }], timestamp: 1 } }
            : undefined,
        ),
      ),
    };
    const {
      value: r,
      ticks,
      ms,
    } = await withTicks(() => readResultTool.invoke(call('read_result', { ref_id: 'msg_7', grep: '(a+)+$' }), ctx));
    // However fast the machine, the host thread was never the one evaluating the pattern.
    assert.ok(ticks >= Math.floor(ms / 50 / 3), `the host thread was blocked: ${ticks} ticks in ${ms} ms`);
    if (r.isError) assert.match(resultText(r), stopped);
    const ok = await readResultTool.invoke(call('read_result', { ref_id: 'msg_7', grep: '^ok$' }), ctx);
    assert.match(resultText(ok), /from "user, turn 2": matches 1-1 of 1/);
  });

  it('a glob slow on every file is stopped when the call budget is spent, whatever progress the walk makes', async () => {
    // Each 40-character name costs a long time (eight stars to backtrack over): 40 of them cannot finish in 1.5 s on any machine.
    const glob = '**a'.repeat(8) + '**b';
    const ctx = { ...makeContext(root), workspace: createNodeWorkspace(root, { patternTimeoutMs: 1_500 }) };
    const r = await listFilesTool.invoke(call('list_files', { glob }), ctx);
    assert.equal(r.isError, true, resultText(r));
    assert.match(resultText(r), /Listing files matching the glob "\*\*a.*" took longer than 1\.5 s and was stopped/);
  });

  it('a grep over a result of many chunks shares one budget over all of them', async () => {
    // Each chunk alone takes a fraction of the budget; all 200 take many times it.
    const content = Buffer.from(`${evil(20)}\n`.repeat(200));
    const page = pageSource(bufferSource(content), { offset: 0, limit: 1000, grep: '(a+)+$' }, { timeoutMs: 1_000, chunkBytes: 22 });
    await assert.rejects(page, (e: Error) => stopped.test(e.message) && / 1 s /.test(e.message));
  });

  it('parallel pattern calls queue for one worker instead of each taking a thread', async () => {
    await fs.readFile(__filename); // the libuv pool's threads exist before the count
    const before = threads();
    const lane = new PatternLane();
    const controller = new AbortController();
    const jobs = [1, 2, 3].map(() =>
      lane.run(
        {
          type: 'grep-chunk',
          content: Buffer.from(`${evil(40)}\n`),
          options: { offset: 0, limit: 100, grep: '(a+)+$' },
          scan: startGrep(),
          last: true,
        },
        { budget: new PatternBudget(60_000), signal: controller.signal, what: 'x' },
      ),
    );
    const settled = Promise.allSettled(jobs);
    await new Promise((r) => setTimeout(r, 1_500));
    const during = threads();
    controller.abort();
    const outcomes = await settled;
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.equal(lane.peakWorkers, 1);
    if (before !== undefined && during !== undefined) assert.ok(during - before <= 1, `${during - before} threads started`);
  });

  it('a call stopped while it waits for the worker leaves at once, and its job never runs', async () => {
    const lane = new PatternLane();
    const first = new AbortController();
    const running = lane.run(
      {
        type: 'grep-chunk',
        content: Buffer.from(`${evil(40)}\n`),
        options: { offset: 0, limit: 100, grep: '(a+)+$' },
        scan: startGrep(),
        last: true,
      },
      { budget: new PatternBudget(60_000), signal: first.signal, what: 'x' },
    );
    const second = new AbortController();
    const waiting = lane.run(
      { type: 'grep-chunk', content: Buffer.from('ok\n'), options: { offset: 0, limit: 100, grep: 'ok' }, scan: startGrep(), last: true },
      { budget: new PatternBudget(60_000), signal: second.signal, what: 'y' },
    );
    second.abort();
    await assert.rejects(waiting, (e: unknown) => e instanceof Error && 'kind' in e && e.kind === 'aborted');
    first.abort();
    await assert.rejects(running);
    const ok = await runPatternJob(
      { type: 'grep-chunk', content: Buffer.from('ok\n'), options: { offset: 0, limit: 100, grep: 'ok' }, scan: startGrep(), last: true },
      { budget: new PatternBudget(10_000), what: 'z', lane },
    );
    assert.equal(ok.matches, 1);
  });
});
