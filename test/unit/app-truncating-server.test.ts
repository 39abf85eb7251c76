import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent/events';
import type { FakeStep, RecordedRequest } from '../fixtures/fake-provider';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

const MODEL = 'mistral-7b-instruct';
const GUIDE = Array.from({ length: 80 }, (_, i) => `第${i}节：上下文窗口不会溢出，压缩会保留用户的每一条指令。`).join('\n');

/** Reads the guide, reads what was stored of it, answers; a request without tools (or with the compaction instruction) is a summary. */
function model(k: number): FakeStep {
  let round = 0;
  return (req: RecordedRequest) => {
    if (req.tools.length === 0 || JSON.stringify(req.body.messages).includes('context compaction'))
      return { text: `Summary of turns up to ${k}.` };
    round++;
    if (round === 1) return { text: 'Reading.', toolCalls: [{ id: `c${k}`, name: 'read_file', arguments: { path: 'guide-zh.md' } }] };
    const ref = [...JSON.stringify(req.body.messages).matchAll(/(res_[0-9a-f]{6,})/g)].at(-1)?.[1];
    if (round === 2 && ref)
      return { text: 'Paging.', toolCalls: [{ id: `p${k}`, name: 'read_result', arguments: { ref_id: ref, offset: 0, limit: 12_000 } }] };
    return { text: `Turn ${k}: the guide is about context windows.` };
  };
}

/**
 * LM Studio cuts a prompt over its context without a word and reports what it evaluated. When another
 * client reloads the model at 2,048 behind Headroom's back, that figure must not become the meter's
 * truth: it is doubted, the next request compacts, the user is told once, the window is read again.
 */
describe('session service: a server that cuts the conversation without a word', function () {
  this.timeout(300_000);
  let world: FakeWorld | undefined;
  afterEach(async () => world?.close());

  it('a truncated figure is not used: compaction, one notice, the window read again', async () => {
    world = await createFakeWorld(
      { 'guide-zh.md': GUIDE },
      {
        server: { flavour: 'lmstudio', windows: { [MODEL]: 8192 }, tokenizer: 'sentencepiece' },
        provider: { provider: 'openai-compatible', model: MODEL },
        tokenWorker: true,
      },
    );
    const { service, env } = await world.open();
    const events: AgentEvent[] = [];
    service.onDidEvent((e) => events.push(e));
    const turn = async (k: number) => {
      world!.server.script.length = 0;
      const step = model(k);
      for (let i = 0; i < 10; i++) world!.server.script.push(step);
      await service.turns.prompt(`Turn ${k}: read guide-zh.md again.`);
    };
    await turn(0);
    assert.equal(service.turns.measure().contextWindow, 8192);
    const before = world.server.requests.length;
    // Another client reloads the model at 2,048 after Headroom asked for the window, before its request.
    world.server.local!.atNextChat(() => world!.server.local!.loadByOtherClient(MODEL, 2048));
    await turn(1);
    const cut = world.server.requests.slice(before).filter((r) => (r.silentlyTruncatedTokens ?? 0) > 0);
    assert.ok(cut.length >= 1, world.server.requests.map((r) => `${r.inputTokens}/${r.contextLength}/${r.evaluatedTokens}`).join(' '));
    assert.ok(service.turns.measure().used > cut[0].evaluatedTokens! / 2, 'the truncated figure did not become the meter');
    const told = env.warnings.filter((w) =>
      /may be cutting the conversation: it reported [\d.,k]+ tokens for a prompt of ~[\d.,k]+/.test(w),
    );
    assert.equal(told.length, 1, env.warnings.join('\n'));
    // The cut may land on the turn's last request: the next request, whichever turn it is in (and after
    // the window is read again), compacts first. LM Studio never refuses with an overflow, so an overflow
    // compaction here comes only from the doubted figure.
    await turn(2);
    assert.ok(
      events.some((e) => e.type === 'compaction' && e.report.trigger === 'overflow'),
      'the next request compacted first, as after an overflow',
    );
    assert.equal(service.turns.measure().contextWindow, 2048, 'asked again, the server said its new window');
    assert.equal(env.warnings.filter((w) => /may be cutting/.test(w)).length, 1, 'told once');
    const after = world.server.requests.slice(world.server.requests.length - 2);
    assert.deepEqual(
      after.map((r) => r.silentlyTruncatedTokens ?? 0),
      [0, 0],
      'nothing cut once the window is known',
    );
  });
});
