import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandHandlers, type HostCommands } from '../../src/commands/command-handlers';
import { COMMAND_CATEGORY, COMMANDS, HOST_COMMANDS, commandId, type CommandName } from '../../src/commands/command-table';

interface ContributedCommand {
  command: string;
  title: string;
  category?: string;
  icon?: string;
}

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { commands: ContributedCommand[]; keybindings: Array<{ command: string; key: string; when?: string }> };
};

/** Host command implementations that record which one ran. */
function recordingHost(ran: string[]): HostCommands {
  return Object.fromEntries(
    HOST_COMMANDS.map((name) => [
      name,
      () => {
        ran.push(name);
        return Promise.resolve();
      },
    ]),
  ) as unknown as HostCommands;
}

describe('the command table and package.json', () => {
  it('contributes exactly the commands of the table, with their titles, icons and the Headroom category', () => {
    const fromTable = (Object.entries(COMMANDS) as Array<[CommandName, { title: string; icon?: string }]>).map(([name, spec]) => ({
      command: commandId(name),
      title: spec.title,
      category: COMMAND_CATEGORY,
      ...(spec.icon ? { icon: `$(${spec.icon})` } : {}),
    }));
    assert.deepEqual(pkg.contributes.commands, fromTable);
  });

  it('gives focus, new session, stop, approve, reject, add selection and compact a key, each only when it can act', () => {
    const keys = new Map(pkg.contributes.keybindings.map((k) => [k.command, k]));
    for (const name of ['focusPanel', 'newSession', 'stop', 'approvePending', 'rejectPending', 'addSelection', 'compactContext'] as const)
      assert.ok(keys.get(commandId(name))?.when, `${name} has a key with a when clause`);
    for (const k of pkg.contributes.keybindings)
      assert.ok(k.command in Object.fromEntries(pkg.contributes.commands.map((c) => [c.command, 1])), k.command);
    assert.match(keys.get('headroom.approvePending')!.when!, /headroom\.approvalPending/);
    assert.match(keys.get('headroom.rejectPending')!.when!, /headroom\.approvalPending/);
    assert.match(keys.get('headroom.stop')!.when!, /headroom\.turnRunning/);
    assert.equal(new Set(pkg.contributes.keybindings.map((k) => k.key)).size, pkg.contributes.keybindings.length, 'no two share a key');
  });

  it('registers a handler for every contributed command, and only those', () => {
    const handlers = commandHandlers({
      onActivation: { focusPanel: () => undefined, showLog: () => undefined },
      host: () => recordingHost([]),
    });
    assert.deepEqual(
      handlers.map((h) => h.id),
      pkg.contributes.commands.map((c) => c.command),
    );
  });

  it('runs an activation command without loading the host, and a host command through the host', async () => {
    const ran: string[] = [];
    let hostLoads = 0;
    const handlers = commandHandlers({
      onActivation: { focusPanel: () => ran.push('focusPanel'), showLog: () => ran.push('showLog') },
      host: () => {
        hostLoads++;
        return recordingHost(ran);
      },
    });
    const run = (id: string) => handlers.find((h) => h.id === id)!.run();
    await run('headroom.showLog');
    await run('headroom.focusPanel');
    assert.equal(hostLoads, 0, 'the activation commands load no host');
    for (const name of HOST_COMMANDS) await run(commandId(name));
    assert.equal(hostLoads, HOST_COMMANDS.length);
    assert.deepEqual(ran, ['showLog', 'focusPanel', ...HOST_COMMANDS]);
  });
});
