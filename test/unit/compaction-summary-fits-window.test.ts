import assert from 'node:assert/strict';
import { createCompactionChain, type ChainResult } from '../../src/agent/compaction';
import { isHistoryMessage } from '../../src/context/compaction';
import type { Message } from '../../src/providers/types';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import { createHarness, danglingCalls, type Harness } from '../fixtures/agent/harness';
import { a, r, u, filler } from '../fixtures/compaction/factories';
import { startFakeProvider } from '../fixtures/fake-provider/index';

/** A history far over a small window: mixed prose, code and log output, each turn with a tool call. */
function history(turns: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(
      u(`Step ${i}: keep the setting HEADROOM_${i} and look at src/module${i}.ts. ${filler(600, `ask ${i}`)}`),
      a(`Reading module ${i}.`, [{ id: `c${i}`, path: `src/module${i}.ts` }]),
      r(`c${i}`, `export function f${i}(x: number) {\n  return x * ${i};\n}\n` + filler(1500, `log line ${i} GET /api/${i} 200`)),
      a(`Module ${i} multiplies by ${i}. ${filler(500, `answer ${i}`)}`),
    );
  }
  return out;
}

const isSummaryRequest = (body: Record<string, unknown>) => JSON.stringify(body).includes('<transcript>');

describe('compaction: the summary request itself never exceeds the window', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const [protocol, WINDOW] of [
    ['openai', 8_000],
    ['anthropic', 8_000],
    ['openai', 4_096],
  ] as const) {
    it(`${protocol}, ${WINDOW} tokens: a session whose history is far over the window compacts by chunked summaries, with no refused request`, async () => {
      // The fake counts with a harsher tokenizer than Headroom's and refuses input + max_tokens over the window.
      const server = await startFakeProvider({ window: WINDOW, tokenizer: 'harsh' });
      const reports: ChainResult[] = [];
      const chain = createCompactionChain({
        get summarizer() {
          return h!.provider;
        },
        summarizerModel: 'fake-model',
        results: createMemoryResultPort(),
        onReport: (x) => reports.push(x),
      });
      h = await createHarness({ protocol, window: WINDOW, maxOutput: 1_024, server, gate: { compact: chain.hook } });
      for (let i = 0; i < 200; i++) {
        server.script.push((req) =>
          isSummaryRequest(req.body) ? { text: `## Goal\nPart ${i}: kept HEADROOM settings and paths.` } : { text: 'Done.' },
        );
      }
      h.view = history(30);
      const before = h.view.length;
      const result = await h.turn('Go on with the next step.');
      try {
        assert.equal(result.reason, 'done', `${result.reason}: ${result.error?.message ?? ''}`);
        const refused = server.requests.filter((q) => q.outcome !== 'reply');
        assert.deepEqual(
          refused.map((q) => `${q.outcome} ${q.inputTokens} tokens`),
          [],
          'no request was refused',
        );
        const summaries = server.requests.filter((q) => isSummaryRequest(q.body));
        assert.ok(summaries.length > 1, `summarized in chunks (${summaries.length} summary requests)`);
        assert.ok(reports.length >= 1 && reports[0].strategies.includes('summary'), reports[0]?.notes.join('; '));
        assert.ok(!reports[0].strategies.includes('drop_oldest_turns'), `no turn dropped: ${reports[0].notes.join('; ')}`);
        assert.ok(isHistoryMessage(h.view[0]) && h.view.length < before, 'the view starts with the summary');
        assert.deepEqual(danglingCalls(h.view), []);
      } finally {
        await server.close();
      }
    });
  }
});
