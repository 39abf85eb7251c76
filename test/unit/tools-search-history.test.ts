import assert from 'node:assert/strict';
import { createCompactionChain } from '../../src/agent/compaction';
import type { HeadroomStore } from '../../src/store';
import { createSearchHistoryTool } from '../../src/tools/builtin/search-history';
import { readResultTool } from '../../src/tools/builtin/read-result';
import { createHistorySearchPort, hitRange } from '../../src/tools/history-port';
import { withMessageRefs } from '../../src/tools/message-refs';
import type { ToolContext } from '../../src/tools/ports';
import { resultText } from '../../src/tools/tool-result';
import { a, r, session, tokensOf, u } from '../fixtures/compaction/factories';
import { cleanup, open, tempRoot } from '../fixtures/store/helpers';
import { call, makeContext } from '../fixtures/tools/tool-context';

describe('search_history: one search over the whole stored transcript, every hit opens with read_result', () => {
  let root: string;
  let store: HeadroomStore;
  let sessionId: string;
  let ctx: ToolContext;
  let search: ReturnType<typeof createSearchHistoryTool>;

  beforeEach(async () => {
    root = tempRoot();
    store = await open(root);
    sessionId = (await store.sessions.create()).id;
    const results = store.results.port(sessionId);
    const transcript = () => store.sessions.transcript(sessionId);
    const port = createHistorySearchPort({ transcript, page: (ref, offset, limit) => results.page(ref, { offset, limit }) });
    search = createSearchHistoryTool(port);
    ctx = { ...makeContext(root), results: withMessageRefs(results, async (seq) => (await transcript()).find((e) => e.seq === seq)) };
  });
  afterEach(async () => {
    await store.close();
    cleanup(root);
  });

  const run = async (args: Record<string, unknown>) => resultText(await search.invoke(call('search_history', args), ctx));
  const refs = (text: string) => [...text.matchAll(/ref_id="([^"]+)" turn/g)].map((m) => m[1]);

  it('finds user, assistant and tool text, and the full text of an offloaded result behind its stub', async () => {
    const stored = await store.results.put(
      sessionId,
      'run_command',
      `$ npm test\n${'ok\n'.repeat(2000)}FAIL src/deep.test.ts: expected 41 to be 42\n[exit code 1]`,
    );
    await store.sessions.appendTurn(sessionId, [u('Always use the port 8123 for the dev server'), a('I will use port 8123.')]);
    await store.sessions.appendTurn(sessionId, [
      u('run the tests'),
      a('', [{ id: 'c1', name: 'run_command' }]),
      r('c1', `[Tool result stored — 6,000 bytes from "run_command". First lines: $ npm test] read_result ref_id="${stored.refId}"`, {
        name: 'run_command',
        refId: stored.refId,
      }),
    ]);
    const user = await run({ query: 'port 8123', role: 'user' });
    assert.match(user, /1 of 1 match/);
    const [userRef] = refs(user);
    assert.match(userRef, /^msg_\d+$/);
    const opened = resultText(await readResultTool.invoke(call('read_result', { ref_id: userRef }), ctx));
    assert.match(opened, /Always use the port 8123 for the dev server/);

    assert.match(await run({ query: 'port 8123', role: 'assistant' }), /I will use port 8123/);
    const tool = await run({ query: 'expected 41 to be 42' });
    assert.deepEqual(refs(tool), [stored.refId], 'the hit names the stored result, found in its full text (not the stub)');
    assert.match(
      resultText(await readResultTool.invoke(call('read_result', { ref_id: stored.refId, grep: 'FAIL' }), ctx)),
      /expected 41 to be 42/,
    );
    assert.match(await run({ query: 'port 8123', from_turn: 2 }), /nothing matches/, 'turn range');
    assert.match(await run({ query: 'dev port', role: 'user' }), /1 of 1/, 'all words when the phrase is absent');
    assert.match(resultText(await readResultTool.invoke(call('read_result', { ref_id: 'msg_999' }), ctx)), /No stored result/);
  });

  it('finds what a compaction removed from the context, every role (planted facts)', async () => {
    const view = session(24, 1500, (i) => `task ${i}: remember the token ZQ-${1000 + i} ${'pad '.repeat(120)}`);
    for (let i = 0; i < view.length; i += 4) await store.sessions.appendTurn(sessionId, view.slice(i, i + 4));
    const chain = createCompactionChain({
      results: { put: async ({ toolName, content }) => (await store.results.put(sessionId, toolName, content)).refId },
    });
    const out = await chain.run(
      { messages: view, tokensOf, targetTokens: 3000, trigger: 'manual', effectiveWindow: 10_000 },
      new AbortController().signal,
    );
    assert.ok(out && out.strategies.includes('drop_oldest_turns'));
    const kept = JSON.stringify(out.messages);
    // (user instructions are carried in the history message; the turns' answers and outputs are gone)
    const removed = [...Array(24).keys()].filter((i) => !kept.includes(`file ${i} is fine`));
    assert.ok(removed.length >= 10, `removed ${removed.length}`);
    for (const i of removed) {
      assert.match(await run({ query: `ZQ-${1000 + i}`, role: 'user' }), /1 of 1/, `user text of turn ${i}`);
      assert.match(await run({ query: `result ${i}: the quick`, role: 'tool', limit: 1 }), /match/, `tool output of turn ${i}`);
      assert.match(await run({ query: `file ${i} is fine`, role: 'assistant', limit: 1 }), /match/, `assistant text of turn ${i}`);
    }
  });
});

describe('a picked search hit opens where it is', () => {
  it('lands on the phrase, else on the earliest of its words, whatever the case', () => {
    const text = 'line one\nline two\nThe Linter found 0 problems\nrun the linter again\n';
    assert.deepEqual(hitRange(text, 'linter found'), { start: 22, end: 34 });
    assert.equal(text.slice(22, 34), 'Linter found');
    // Not as a phrase: the first of its words in the text.
    assert.deepEqual(hitRange(text, 'again problems'), { start: text.indexOf('problems'), end: text.indexOf('problems') + 8 });
    assert.equal(hitRange(text, 'zebra'), undefined);
    assert.equal(hitRange(text, '   '), undefined);
  });
});
