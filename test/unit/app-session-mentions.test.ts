import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { MENTION_INLINE_BYTES } from '../../src/app/mention-message';
import { HeadroomError } from '../../src/common/errors';
import { userItem } from '../../src/panel/transcript-items';
import type { UserMessage } from '../../src/providers/types';
import { createFakeWorld, until, type FakeWorld } from '../fixtures/app/fake-environment';

/** What the model was sent as the last user message of a request (Anthropic wire format). */
function lastUserText(world: FakeWorld, request = -1): string {
  const body = world.server.requests.at(request)!.body as { messages: Array<{ role: string; content: unknown }> };
  const user = body.messages.filter((m) => m.role === 'user').at(-1)!;
  return JSON.stringify(user.content);
}

/** @-mentions and edit-and-resend through the session service, against the fake provider. */
describe('session service: @-mentions and edit-and-resend', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(
    async () =>
      (world = await createFakeWorld({
        'notes.txt': 'the build uses esbuild\n',
        'src/big.ts': `// big file\n${'export const line = "0123456789abcdef0123456789abcdef0123456789";\n'.repeat(3_000)}`,
      })),
  );
  afterEach(async () => world?.close());

  it('sends a mentioned file with the prompt; the transcript shows the prompt and a chip, not the content', async () => {
    const { service } = await world.open();
    world.server.script.push({ text: 'It uses esbuild.' });
    // The messages part: the total before the first request is an estimate of system and tools that the provider's count then corrects.
    const messages = () => service.turns.measure().budget?.components.find((c) => c.name === 'messages')?.tokens ?? 0;
    const before = messages();
    await service.turns.prompt('Which bundler does @notes.txt name?', undefined, [{ kind: 'file', path: 'notes.txt' }]);
    const sent = lastUserText(world);
    assert.match(sent, /Which bundler does @notes.txt name\?/);
    assert.match(sent, /<file path=\\"notes.txt\\">\\nthe build uses esbuild\\n<\/file>/);
    const user = service.sessions.messages[0] as UserMessage;
    assert.deepEqual(user.mentions, [{ kind: 'file', label: 'notes.txt', path: 'notes.txt' }]);
    const item = userItem('u1', user);
    assert.equal(item.text, 'Which bundler does @notes.txt name?');
    assert.deepEqual(item.mentions, [{ kind: 'file', label: 'notes.txt', path: 'notes.txt' }]);
    assert.ok(messages() > before, 'the meter counts the message with its attachment');
  });

  it('stores a large mentioned file like a large tool result: the model gets a stub it can page with read_result', async () => {
    const { service } = await world.open();
    const size = (await fs.stat(path.join(world.folder, 'src/big.ts'))).size;
    assert.ok(size > MENTION_INLINE_BYTES, 'the fixture is over the inline limit');
    world.server.script.push({ text: 'Seen.' });
    await service.turns.prompt('Review @src/big.ts', undefined, [{ kind: 'file', path: 'src/big.ts' }]);
    const sent = lastUserText(world);
    assert.ok(sent.length < 4_000, `the request carries a stub, not ${size} bytes (got ${sent.length})`);
    const ref = /read_result ref_id=\\"([^\\"]+)\\"/.exec(sent)?.[1];
    assert.ok(ref, sent);
    const user = service.sessions.messages[0] as UserMessage;
    assert.equal(user.mentions?.[0].stored, true);
    const stored = await service.search.readResult(ref);
    assert.ok(stored.includes('// big file') && stored.length >= size, 'the whole file is in the result store');
  });

  it('says in the message when a mention was refused, and never sends what is outside the workspace', async () => {
    const { service } = await world.open();
    world.server.script.push({ text: 'ok' });
    await service.turns.prompt('read @../../etc/passwd', undefined, [{ kind: 'file', path: '../../etc/passwd' }]);
    const sent = lastUserText(world);
    assert.match(sent, /\[@..\/..\/etc\/passwd was not attached: .*outside the workspace/);
    assert.doesNotMatch(sent, /root:x:0/);
    assert.match((service.sessions.messages[0] as UserMessage).mentions?.[0].problem ?? '', /outside/);
  });

  it('edit-and-resend replaces the last turn: the model no longer sees the first prompt or its answer, also after reopening', async () => {
    const { service } = await world.open();
    world.server.script.push({ text: 'First answer about cats.' }, { text: 'Answer about dogs.' }, { text: 'Answer about birds.' });
    await service.turns.prompt('Tell me about cats');
    await service.turns.prompt('Tell me about fish');
    await service.turns.dropLastTurn();
    assert.equal(service.sessions.messages.length, 2, 'the first turn stays');
    await service.turns.prompt('Tell me about birds instead');
    assert.equal(service.sessions.state().title, 'Tell me about cats', 'a later turn replaced: the title stays');
    const body = JSON.stringify(world.server.requests.at(-1)!.body.messages);
    assert.match(body, /Tell me about cats/);
    assert.match(body, /First answer about cats/);
    assert.doesNotMatch(body, /Tell me about fish|Answer about dogs/);
    assert.equal(service.sessions.state().transcriptCount, 6, 'the stored transcript keeps the replaced turn');
    const id = service.sessions.state().sessionId;
    await service.storage.flush();
    const { service: again } = await world.open();
    await again.sessions.open(id);
    assert.deepEqual(
      again.sessions.messages.map((m) => (m.content[0] as { text?: string }).text),
      ['Tell me about cats', 'First answer about cats.', 'Tell me about birds instead', 'Answer about birds.'],
    );
  });

  it('an edited first prompt names the session instead of the replaced one', async () => {
    const { service } = await world.open();
    world.server.script.push({ text: 'A.' }, { text: 'B.' });
    await service.turns.prompt('Tell me about cats');
    assert.equal(service.sessions.state().title, 'Tell me about cats');
    await service.turns.dropLastTurn();
    await service.turns.prompt('Tell me about dogs');
    assert.equal(service.sessions.state().title, 'Tell me about dogs');
  });

  it('refuses to edit while a turn runs or when there is no prompt', async () => {
    const { service } = await world.open();
    await assert.rejects(service.turns.dropLastTurn(), (e: unknown) => e instanceof HeadroomError && /no prompt/.test(e.message));
    world.server.script.push({ fault: 'pings', intervalMs: 50, partialText: 'thinking' });
    const running = service.turns.prompt('a long one');
    // Waits on the state, not the clock: before its turn starts the prompt may ask the provider first.
    await until(() => service.sessions.state().running);
    await assert.rejects(service.turns.dropLastTurn(), /Stop the running turn/);
    service.sessions.stop();
    await running;
  });
});
