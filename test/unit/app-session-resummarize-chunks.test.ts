import assert from 'node:assert/strict';
import type { AgentEvent, CompactionReport } from '../../src/agent/events';
import type { RecordedRequest } from '../fixtures/fake-provider/index';
import { createFakeWorld, MODEL, type FakeWorld } from '../fixtures/app/fake-environment';

const isSummary = (req: RecordedRequest) => {
  const body = JSON.stringify(req.body.messages);
  return body.includes('<transcript>') || body.includes('consecutive parts of one coding session');
};

/**
 * The periodic re-summary from the originals, through the session service: once the originals are
 * longer than one summarizer request (the long sessions where summaries of summaries drift most) it
 * is rebuilt in chunks and merged, instead of being skipped without a word.
 */
describe('session service: re-summary from the originals in chunks', function () {
  this.timeout(300_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld()));
  afterEach(async () => world?.close());

  it('rebuilds the second summary from every original turn, in chunks, when they do not fit one request', async () => {
    const { service, env } = await world.open({
      models: { [MODEL]: { contextWindow: 12_000, maxOutput: 2_000 } },
      compaction: { summarizerModel: undefined, keepTurns: 0, resummarizeEvery: 2, native: true },
    });
    world.server.setWindow(MODEL, 12_000);
    const reports: CompactionReport[] = [];
    service.onDidEvent((e: AgentEvent) => void (e.type === 'compaction' && reports.push(e.report)));
    const answer = (req: RecordedRequest) => (isSummary(req) ? { text: 'A summary that names nothing.' } : { text: 'Answer: noted.' });
    for (let i = 0; i < 200; i++) world.server.script.push(answer);

    for (let i = 0; i < 8; i++) await service.turns.prompt(`ORIGINAL-${i}: always keep file names in lowercase. ${'context '.repeat(600)}`);
    const first = await service.compactions.compact();
    assert.ok(first?.strategies.includes('summary'), `first pass: ${first?.strategies.join('+')}`);
    for (let i = 8; i < 40 && !reports.length; i++)
      await service.turns.prompt(`ORIGINAL-${i}: always keep file names in lowercase. ${'context '.repeat(600)}`);
    const second = reports[0] ?? (await service.compactions.compact());
    assert.ok(second, 'a second compaction ran');
    assert.ok(
      second.strategies.includes('resummarize'),
      `the second summary was rebuilt from the originals: ${second.strategies.join('+')}`,
    );

    const summaries = world.server.requests.filter(isSummary);
    const merges = summaries.filter((r) => JSON.stringify(r.body.messages).includes('consecutive parts of one coding session'));
    assert.ok(merges.length >= 1, 'the chunks were merged');
    const chunked = summaries.filter((r) => !merges.includes(r)).slice(-merges.length - 2);
    assert.ok(
      chunked.some((r) => JSON.stringify(r.body.messages).includes('ORIGINAL-0')),
      'the first original turn is in a chunk, though it left the context at the first compaction',
    );
    assert.match(env.logLines.join('\n'), /summarized in \d+ chunks and merged/, 'the pass says how it was made');
  });
});
