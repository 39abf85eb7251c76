import assert from 'node:assert/strict';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

const MODEL = 'llama-2-7b-chat';

/**
 * At 4,096 tokens the full system prompt and tool definitions (2,192 Llama 2 tokens) and the output
 * reservation left ~800 tokens for the conversation. In a small window Headroom sends a compact prompt
 * and fewer, briefer tools: a 4k model keeps at least half its window for the conversation, counted
 * by the server's own (SentencePiece) tokenizer.
 */
describe('session service: a small window keeps room for the conversation', function () {
  this.timeout(120_000);
  let world: FakeWorld | undefined;
  afterEach(async () => world?.close());

  const open = async (files: Record<string, string>) =>
    (world = await createFakeWorld(files, {
      server: { flavour: 'llamacpp', windows: { [MODEL]: 4096 }, tokenizer: 'sentencepiece' },
      provider: { provider: 'openai-compatible', model: MODEL },
      tokenWorker: true,
    }));

  it("4,096 tokens: Headroom's system prompt + tools + output reservation take at most half the window", async () => {
    world = await open({ 'README.md': '# project\n' });
    const { service } = await world.open();
    world.server.script.push({ text: 'ok' });
    await service.turns.prompt('hi');
    const limits = service.models.limits();
    assert.equal(limits.contextWindow, 4096);
    const sent = world.server.requests[0];
    const fixed = sent.inputTokens; // system prompt, tools and a two-letter prompt, by the server's tokenizer
    assert.ok(
      fixed + limits.maxOutput + limits.buffer <= 4096 / 2,
      `fixed ${fixed} + output ${limits.maxOutput} + buffer ${limits.buffer} leave ${4096 - fixed - limits.maxOutput - limits.buffer} for the conversation`,
    );
    // Fewer tools, briefer: the others are found with tool_search (its note says so).
    assert.ok(sent.tools.length <= 6 && sent.tools.includes('tool_search') && sent.tools.includes('read_file'), sent.tools.join());
    assert.match(JSON.stringify(sent.body.messages), /tools? deferred to save context/);
  });

  it("4,096 tokens: the workspace's rules files are cut short, and say so", async () => {
    world = await open({ 'AGENTS.md': `# Rules\n${'- Keep functions small and tested.\n'.repeat(200)}` });
    const { service } = await world.open();
    world.server.script.push({ text: 'ok' });
    await service.turns.prompt('hi');
    assert.match(JSON.stringify(world.server.requests[0].body.messages), /AGENTS\.md cut at 1024 of \d+ bytes/);
  });
});
