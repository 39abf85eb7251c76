/**
 * How a model-run command is started so that it cannot read the extension host's own environment.
 * An allow-listed environment (`command-env.ts`) is not enough: on Linux any process of the same user
 * may read `/proc/<pid>/environ` of the host (`$PPID` for the command's shell), which holds whatever
 * keys VS Code was started with.
 *
 * The defence, on Linux: the command runs in its own user and PID namespace with a /proc of its own
 * (`unshare --user --map-current-user --pid --fork --mount-proc`), so no process outside its own tree
 * has a /proc entry it could open, and without any capability (`setpriv`), so it cannot unmount that
 * /proc to reach the host's. Files it writes belong to the user as before; its processes end with it.
 *
 * Where that is not possible (macOS, Windows, a Linux without util-linux or with unprivileged user
 * namespaces disabled), the command starts as before, with the allow-listed environment, and
 * `launcherNote` says so once in the log: another process of the same user can read the host's
 * environment there, so keys belong in SecretStorage (Set API Key), not in exported variables.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

/** A command line to put before `/bin/sh -c <command>`: its program and arguments. */
export interface Launcher {
  file: string;
  args: string[];
}

const UNSHARE = ['/usr/bin/unshare', '/bin/unshare'];
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];
const PROBE_TIMEOUT_MS = 5_000;

/** The isolating launcher from the absolute paths of `unshare` and `setpriv` (never looked up on PATH). */
export function isolatingLauncher(unshare: string, setpriv: string): Launcher {
  return {
    file: unshare,
    args: [
      '--user',
      '--map-current-user',
      '--pid',
      '--fork',
      '--mount-proc',
      '--kill-child',
      setpriv,
      '--no-new-privs',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--',
    ],
  };
}

let probed: Promise<Launcher | undefined> | undefined;

/**
 * The launcher this system allows, found once per process: the isolating one when a trial run of it
 * works, else undefined (start the shell directly). Never rejects.
 */
export function commandLauncher(platform: NodeJS.Platform = process.platform): Promise<Launcher | undefined> {
  if (platform !== 'linux') return Promise.resolve(undefined);
  return (probed ??= probe());
}

async function probe(): Promise<Launcher | undefined> {
  const unshare = UNSHARE.find((p) => existsSync(p));
  const setpriv = SETPRIV.find((p) => existsSync(p));
  if (!unshare || !setpriv) return undefined;
  const launcher = isolatingLauncher(unshare, setpriv);
  // The trial must see a /proc with only its own processes: pid 1 is its shell.
  const ok = await new Promise<boolean>((resolve) => {
    execFile(
      launcher.file,
      [...launcher.args, '/bin/sh', '-c', 'test "$(cat /proc/1/comm)" = sh && echo isolated'],
      { timeout: PROBE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' } },
      (err, stdout) => resolve(!err && stdout.trim() === 'isolated'),
    );
  });
  return ok ? launcher : undefined;
}

/** What the log says about how commands are started (once). */
export function launcherNote(launcher: Launcher | undefined): string {
  return launcher
    ? 'run_command: commands run in their own PID namespace (they cannot read the environment of VS Code or other processes).'
    : 'run_command: this system does not allow an unprivileged PID namespace, so a command could read the environment of ' +
        'VS Code and other processes of your user; keep API keys in Headroom: Set API Key rather than in exported variables.';
}
