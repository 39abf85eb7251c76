/**
 * What each `headroom.*` command runs, built from the command table: the activation-path commands run
 * their own function, every other one loads the host and runs its implementation. Pure (no vscode);
 * `register.ts` hands the result to VS Code.
 */
import { COMMAND_NAMES, commandId, isActivationCommand, type ActivationCommand, type CommandName, type HostCommand } from './command-table';

/** The host's command implementations (`Host.commands`). Each may reject; the registration reports it. */
export type HostCommands = Readonly<Record<HostCommand, () => Promise<void>>>;

export interface CommandHandlerDeps {
  /** The commands that run without loading the host. */
  readonly onActivation: Readonly<Record<ActivationCommand, () => unknown>>;
  /** Loads the host on first use (see extension.ts) and returns its command implementations. */
  readonly host: () => HostCommands;
}

/** One handler per command of the table, keyed by command id, in table order. Never throws itself. */
export function commandHandlers(deps: CommandHandlerDeps): Array<{ id: string; run: () => unknown }> {
  return COMMAND_NAMES.map((name) => ({ id: commandId(name), run: handlerFor(name, deps) }));
}

function handlerFor(name: CommandName, deps: CommandHandlerDeps): () => unknown {
  if (isActivationCommand(name)) return deps.onActivation[name];
  return () => deps.host()[name]();
}
