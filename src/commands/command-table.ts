/**
 * The one list of Headroom's commands: the short name (id `headroom.<name>`), the palette title and the
 * codicon. package.json `contributes.commands` must say the same (a unit test compares them), and
 * every entry is registered (`command-handlers.ts`). Pure data, no vscode: it is on the activation path.
 */

/** A command as the palette shows it (category "Headroom"). */
export interface CommandSpec {
  /** Title Case, as in package.json. */
  readonly title: string;
  /** A codicon name (package.json writes it `$(name)`); shown where the command sits in a view's title bar. */
  readonly icon?: string;
  /** Runs without loading the host (dist/host.js); only for commands that need nothing of it. */
  readonly onActivation?: true;
}

export const COMMAND_CATEGORY = 'Headroom';

export const COMMANDS = {
  focusPanel: { title: 'Focus Panel', onActivation: true },
  showLog: { title: 'Show Log', icon: 'output', onActivation: true },
  setApiKey: { title: 'Set API Key', icon: 'key' },
  selectModel: { title: 'Select Model', icon: 'sparkle' },
  compactContext: { title: 'Compact Context', icon: 'fold' },
  clearContext: { title: 'Clear Context', icon: 'clear-all' },
  newSession: { title: 'New Session', icon: 'add' },
  stop: { title: 'Stop', icon: 'debug-stop' },
  showContextBreakdown: { title: 'Show Context Breakdown', icon: 'graph' },
  openSession: { title: 'Open Session…', icon: 'history' },
  saveSnapshot: { title: 'Save Snapshot', icon: 'save' },
  restoreSnapshot: { title: 'Restore Snapshot…', icon: 'discard' },
  undoCompaction: { title: 'Undo Last Compaction', icon: 'undo' },
  openStoredResult: { title: 'Open Stored Result…', icon: 'file-binary' },
  searchHistory: { title: 'Search History…', icon: 'search' },
  pin: { title: 'Pin…', icon: 'pin' },
  unpin: { title: 'Unpin…', icon: 'pinned' },
  addSelection: { title: 'Add Selection to Headroom', icon: 'mention' },
  approvePending: { title: 'Approve the Pending Action', icon: 'check' },
  rejectPending: { title: 'Reject the Pending Action', icon: 'close' },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** Commands that run on the activation path (see `CommandSpec.onActivation`). */
export type ActivationCommand = { [K in CommandName]: (typeof COMMANDS)[K] extends { onActivation: true } ? K : never }[CommandName];

/** Commands implemented by the lazily loaded host (`Host.commands`). */
export type HostCommand = Exclude<CommandName, ActivationCommand>;

/** The VS Code command id of a command: `headroom.<name>`. */
export function commandId(name: CommandName): `headroom.${CommandName}` {
  return `headroom.${name}`;
}

/** Every command name, in table order. */
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

/** Whether a command runs on the activation path (else in the host). */
export function isActivationCommand(name: CommandName): name is ActivationCommand {
  return 'onActivation' in COMMANDS[name];
}

/** The host's commands, in table order. */
export const HOST_COMMANDS = COMMAND_NAMES.filter((n): n is HostCommand => !isActivationCommand(n));
