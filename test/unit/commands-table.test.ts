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
  contributes: { commands: ContributedCommand[] };
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
