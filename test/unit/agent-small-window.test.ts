import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from '../fixtures/fake-provider/script';
import { createHarness, danglingCalls, type Harness } from '../fixtures/agent/harness';

const corpus = (f: string) => readFileSync(join(__dirname, '..', 'fixtures', 'corpus', f), 'utf8');

/** The last read_result ref id and next offset the model was shown. */
function lastRef(req: RecordedRequest): { ref?: string; offset: number } {
  const text = JSON.stringify(req.body.messages ?? req.body.input ?? []);
  const refs = [...text.matchAll(/ref_id=\\"(res_[0-9a-f]+)\\"/g)];
  const next = [...text.matchAll(/\[more: offset=(\d+)/g)];
  return { ref: refs.at(-1)?.[1], offset: next.length ? Number(next.at(-1)![1]) : 0 };
}

describe('agent: a small (8k) window stays usable turn after turn', function () {
  this.timeout(120_000);
  let h: Harness;
  afterEach(async () => h?.close());

  for (const protocol of ['openai', 'anthropic'] as const) {
    it(`${protocol}: 5 turns with large outputs, no forced final answer, one approval per command`, async () => {
      h = await createHarness({
        protocol,
        window: 8_000,
        maxOutput: 1_024,
        files: {
          'docs/features.md': corpus('ja-vite-docs.txt'),
          'logs/access.log': corpus('log-apache.txt'),
          'src/app.js': corpus('code-javascript.txt'),
        },
      });
      const files = ['docs/features.md', 'logs/access.log', 'src/app.js', 'docs/features.md', 'logs/access.log'];
      for (let turn = 0; turn < 5; turn++) {
        // Each turn: a command with a large output, a large file, two maximum-size pages of what was stored, an answer.
        h.server.script.push(
          {
            text: 'Running the check.',
            toolCalls: [{ id: `cmd${turn}`, name: 'run_command', arguments: { command: `cat ${files[turn]} | head -c 20000` } }],
          },
          { toolCalls: [{ id: `read${turn}`, name: 'read_file', arguments: { path: files[(turn + 1) % 5] } }] },
          (req) => ({
            toolCalls: [
              {
                id: `page${turn}a`,
                name: 'read_result',
                arguments: { ref_id: lastRef(req).ref ?? 'none', offset: lastRef(req).offset, limit: 32_000 },
              },
            ],
          }),
          (req) => ({
            toolCalls: [
              {
                id: `page${turn}b`,
                name: 'read_result',
                arguments: { ref_id: lastRef(req).ref ?? 'none', offset: lastRef(req).offset, limit: 32_000 },
              },
            ],
          }),
          { text: `Turn ${turn} done: ` + 'the summary of what I found in the files and the command output. '.repeat(20) },
        );
        const r = await h.turn(`Step ${turn}: check ${files[turn]} and tell me what you see.`);
        assert.equal(r.reason, 'done', `turn ${turn} ended with ${r.reason}: ${r.error?.message ?? ''}`);
        assert.deepEqual(danglingCalls(h.view), []);
      }
      assert.ok(!h.events.some((e) => e.type === 'turn_end' && e.reason === 'context_full'), 'no forced final answer');
      assert.ok(
        h.server.requests.every((q) => q.outcome !== 'overflow'),
        'nothing over the window',
      );
      assert.ok(
        h.server.requests.every((q) => q.tools.length > 0),
        'every request offered tools (no forced final turn)',
      );
      // One approval per command: a compaction never makes the model run the same command again.
      const ran = h.events.flatMap((e) => (e.type === 'tool_end' && e.call.name === 'run_command' ? [e.call.id] : []));
      assert.deepEqual(ran, ['cmd0', 'cmd1', 'cmd2', 'cmd3', 'cmd4'], 'each command ran once');
      const asked = h.approvals.requests.map((a) => a.toolCallId);
      assert.equal(new Set(asked).size, asked.length, 'no call was put to the user twice');
      const compactions = h.events.filter((e) => e.type === 'compaction');
      assert.ok(compactions.length <= 10, `${compactions.length} compactions in 5 turns`);
    });
  }
});
