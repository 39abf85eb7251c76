/**
 * Patterns from the model must not freeze the extension host: a backtracking regex in read_result's
 * grep or search_text, or a glob with many wildcards in one segment, used to block the thread for
 * seconds to minutes (the tool timeout cannot fire while the thread is blocked). They now run in a
 * worker under a time bound and end with a message the model can act on.
 */
import assert from 'node:assert/strict';
import { listFilesTool } from '../../src/tools/builtin/list-files';
import { readResultTool } from '../../src/tools/builtin/read-result';
import { searchTextTool } from '../../src/tools/builtin/search-text';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { PatternBudget, runPatternJob } from '../../src/tools/pattern-runner';
import { startGrep } from '../../src/tools/result-paging';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

/** A line on which `(a+)+$` backtracks exponentially (2^40 paths; 29 characters took 5.4 s). */
const EVIL_LINE = 'a'.repeat(40) + '!';
/** Generous bound for "returns promptly" on a loaded 2-core machine; the unbounded cases take minutes. */
const PROMPT_MS = 25_000;

/** Counts event-loop ticks while `work` runs: a blocked thread gets none. */
async function withTicks<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 50);
  const started = Date.now();
  try {
    const value = await work();
    return { value, ticks, ms: Date.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe('security: model-supplied patterns cannot freeze the host', function () {
  this.timeout(90_000);
  let root: string;

  before(async () => {
    root = await tempWorkspace({
      'logs/evil.txt': `first line\n${EVIL_LINE}\nlast line\n`,
      [`deep/${'a'.repeat(60)}`]: 'x\n',
      'src/app.ts': 'export const app = 1;\n',
    });
  });
  after(() => removeDir(root));

  it('read_result grep (a+)+$ on a 41-character line stops at its bound with a clear message, off the host thread', async () => {
    const ctx = makeContext(root);
    const refId = await ctx.results.put({ toolName: 'run_command', toolCallId: 'c1', content: `ok\n${EVIL_LINE}\n`.repeat(3) });
    const {
      value: r,
      ticks,
      ms,
    } = await withTicks(() => readResultTool.invoke(call('read_result', { ref_id: refId, grep: '(a+)+$' }), ctx));
    assert.equal(r.isError, true);
    assert.match(resultText(r), /The regular expression \/\(a\+\)\+\$\/ took longer than 5 s and was stopped/);
    assert.match(resultText(r), /use a simpler pattern/);
    assert.ok(ms < PROMPT_MS, `took ${ms} ms`);
    assert.ok(ticks >= 10, `the host thread kept running (${ticks} ticks in ${ms} ms)`);

    // The worker pool is healthy afterwards: an ordinary grep answers.
    const ok = await readResultTool.invoke(call('read_result', { ref_id: refId, grep: '^ok$' }), ctx);
    assert.equal(ok.isError, false, resultText(ok));
    assert.match(resultText(ok), /matches 1-3 of 3/);
  });

  it('list_files with the glob **a**a…b stops at its bound with a clear message', async () => {
    const glob = '**a'.repeat(14) + '**b';
    const ctx = { ...makeContext(root), workspace: createNodeWorkspace(root, { patternTimeoutMs: 5_000 }) };
    const { value: r, ticks, ms } = await withTicks(() => listFilesTool.invoke(call('list_files', { glob }), ctx));
    assert.equal(r.isError, true);
    assert.match(resultText(r), /Listing files matching the glob "\*\*a.*" took longer than 5 s and was stopped/);
    assert.ok(ms < PROMPT_MS, `took ${ms} ms`);
    assert.ok(ticks >= 5, `the host thread kept running (${ticks} ticks)`);

    const ok = await listFilesTool.invoke(call('list_files', { glob: '*.ts' }), ctx);
    assert.match(resultText(ok), /1 file matching "\*\.ts":\nsrc\/app\.ts/);
  });

  it('search_text without ripgrep stops a backtracking regex at its bound', async () => {
    const ctx = { ...makeContext(root), workspace: createNodeWorkspace(root, { patternTimeoutMs: 5_000 }) };
    const { value: r, ms } = await withTicks(() => searchTextTool.invoke(call('search_text', { pattern: '(a+)+$' }), ctx));
    assert.equal(r.isError, true);
    assert.match(resultText(r), /Searching for \/\(a\+\)\+\$\/ took longer than 5 s and was stopped/);
    assert.ok(ms < PROMPT_MS, `took ${ms} ms`);

    const ok = await searchTextTool.invoke(call('search_text', { pattern: 'last line' }), ctx);
    assert.match(resultText(ok), /logs\/evil\.txt:3: last line/);
  });

  it('an abort terminates a running pattern job at once', async () => {
    const controller = new AbortController();
    const content = Buffer.from(`${EVIL_LINE}\n`);
    const job = runPatternJob(
      { type: 'grep-chunk', content, options: { offset: 0, limit: 1000, grep: '(a+)+$' }, scan: startGrep(), last: true },
      { budget: new PatternBudget(60_000), signal: controller.signal, what: 'x' },
    );
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    await assert.rejects(job, (e: unknown) => e instanceof Error && 'kind' in e && e.kind === 'aborted');
    assert.ok(Date.now() - started < PROMPT_MS);
  });
});
