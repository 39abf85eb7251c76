import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentEvent } from '../../src/agent/events';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';
import { resultText } from '../fixtures/tools/tool-context';

/**
 * The repeat guard through the session service: work the ledger knows is done is not done again —
 * a command that passed with no file changed since, an edit already applied, a write of the same
 * content, a finished plan step — and the model is told what happened before. Anything that changed,
 * a `rerun` reason or the user naming the command lets it run.
 */
describe('session service: repeat guard', function () {
  this.timeout(180_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'src/app.ts': 'export const a = 1;\n' })));
  afterEach(async () => world?.close());

  const commands = (env: { approvalsMade: { requests: Array<{ kind: string }> } }) =>
    env.approvalsMade.requests.filter((r) => r.kind === 'command').length;

  /** One turn in which the model calls `name` with `args`, then answers; returns the call's result text. */
  async function call(
    service: Awaited<ReturnType<FakeWorld['open']>>['service'],
    name: string,
    args: Record<string, unknown>,
    prompt = 'Go on.',
  ) {
    const events: AgentEvent[] = [];
    const sub = service.onDidEvent((e) => events.push(e));
    const id = `c${world.server.requests.length}`;
    world.server.script.push({ toolCalls: [{ id, name, arguments: args }] }, { text: 'Done.' });
    await service.turns.prompt(prompt);
    sub.dispose();
    const end = events.find((e) => e.type === 'tool_end' && e.call.id === id);
    assert.ok(end?.type === 'tool_end');
    return resultText(end.result);
  }

  it('does not run a passed command again while no file changed; a change, a rerun reason or the user asking runs it', async () => {
    const { service, env } = await world.open();
    const first = await call(service, 'run_command', { command: 'echo CHECK-OK' });
    assert.match(first, /CHECK-OK[\s\S]*\[exit code 0\]/);
    assert.equal(commands(env), 1);

    const again = await call(service, 'run_command', { command: 'echo CHECK-OK' });
    assert.equal(commands(env), 1, 'not asked for, not run');
    assert.match(again, /^Not run again: `echo CHECK-OK` already ran at turn 1 with exit 0, and no file in the workspace changed since\./);
    const ref = /stored as (\S+):/.exec(again)?.[1];
    assert.ok(ref, `names where the output is: ${again}`);
    assert.match(await service.search.readResult(ref), /CHECK-OK/, 'the ref opens the earlier output');
    const card = service.sessions.messages.find((m) => m.role === 'toolResult' && resultText(m).startsWith('Not run again'));
    assert.ok(card?.role === 'toolResult' && !card.isError, 'an answer, not an error');

    await call(service, 'write_file', { path: 'src/b.ts', content: 'export const b = 2;\n' });
    await call(service, 'run_command', { command: 'echo CHECK-OK' });
    assert.equal(commands(env), 2, 'a file changed since: it runs');

    await call(service, 'run_command', { command: 'echo CHECK-OK', rerun: 'the user wants a fresh run' });
    assert.equal(commands(env), 3, 'a rerun reason runs it');

    await call(service, 'run_command', { command: 'echo CHECK-OK' }, 'Run `echo CHECK-OK` again please.');
    assert.equal(commands(env), 4, 'the user named it in this turn: it runs');

    await call(service, 'run_command', { command: 'echo CHECK-OK' });
    assert.equal(commands(env), 4, 'and after that it is guarded again');
  });

  it('a change made outside the tools (the editor, another program) lets the command run again', async () => {
    const { service, env } = await world.open();
    await call(service, 'run_command', { command: 'echo CHECK-OK' });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(world.folder, 'src/app.ts'), 'export const a = 2;\n');
    await call(service, 'run_command', { command: 'echo CHECK-OK' });
    assert.equal(commands(env), 2);
  });

  it('does not apply an edit twice: an appending edit repeated leaves the file as the first one did', async () => {
    const { service, env } = await world.open();
    const edit = { path: 'src/app.ts', old_text: 'export const a = 1;', new_text: 'export const a = 1;\nexport const b = 2;' };
    assert.match(await call(service, 'edit_file', edit), /^Edited /);
    const once = await readFile(join(world.folder, 'src/app.ts'), 'utf8');
    const again = await call(service, 'edit_file', edit);
    assert.match(again, /^Already done: this edit to src\/app\.ts was applied at turn 1, and the file has not changed since\./);
    assert.equal(await readFile(join(world.folder, 'src/app.ts'), 'utf8'), once, 'not appended a second time');
    assert.equal(env.approvalsMade.requests.filter((r) => r.kind === 'edit').length, 1, 'nobody was asked twice');

    // An edit whose old text is gone and whose new text is there is applied, whoever applied it.
    const other = await call(service, 'edit_file', { path: 'src/app.ts', old_text: 'const b = 1;', new_text: 'export const b = 2;' });
    assert.match(other, /^Already done: src\/app\.ts already contains this edit's new text/);
  });

  it('says a write of the same content was done, and keeps finished plan steps done', async () => {
    const { service, env } = await world.open();
    await call(service, 'write_file', { path: 'src/c.ts', content: 'export const c = 3;\n' });
    const again = await call(service, 'write_file', { path: 'src/c.ts', content: 'export const c = 3;\n' });
    assert.match(again, /^Already done: src\/c\.ts already has exactly this content \(written at turn 1\)/);
    assert.equal(env.approvalsMade.requests.filter((r) => r.kind === 'edit').length, 1);

    await call(service, 'update_plan', {
      items: [
        { text: 'port the lexer', status: 'done' },
        { text: 'wire the parser', status: 'open' },
      ],
    });
    const reopened = await call(service, 'update_plan', {
      items: [
        { text: 'Port the lexer', status: 'open' },
        { text: 'wire the parser', status: 'in_progress' },
      ],
    });
    assert.match(
      reopened,
      /^Already done: a plan step sent as open was finished before and stay done: "Port the lexer" \(done at turn 3\)/,
    );
    assert.deepEqual(
      service.records.ledger().plan.map((p) => p.status),
      ['done', 'in_progress'],
    );
    await call(service, 'update_plan', { items: [{ text: 'port the lexer', status: 'open' }], reopen: ['port the lexer'] });
    assert.equal(service.records.ledger().plan[0].status, 'open', 'reopen opens it on purpose');
  });
});
