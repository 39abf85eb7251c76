/**
 * The environment a model-run command gets: an allow-list, not the host's environment minus what
 * looks secret. The extension host's environment usually holds keys and passwords under names no
 * deny-list anticipates (`MYSQL_PWD`, `SENTRY_DSN`, `SLACK_WEBHOOK_URL`, `GH_PAT`, `DB_PASS`, a
 * `?password=` URL…); a command could print them into the transcript, which then goes to the provider.
 * So a command gets only what a shell needs to find programs and speak the user's language (path,
 * home, user, shell, temp folder, locale, terminal; on Windows the system folders), plus the names the
 * user lists in `headroom.commandEnvAllowList`. Pure.
 */

/** Names passed on every platform (POSIX shells, git, compilers and test runners need no more). */
const BASE_NAMES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
];

/** What Windows programs need to start at all (cmd.exe, the system DLL search path, the profile folders). */
const WINDOWS_NAMES = [
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'USERNAME',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'PROGRAMW6432',
  'COMMONPROGRAMFILES',
  'COMMONPROGRAMFILES(X86)',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  'OS',
];

/** The locale categories (`LC_ALL`, `LC_CTYPE`…). */
const LOCALE = /^LC_[A-Z_]+$/;

export interface CommandEnvironment {
  env: Record<string, string>;
  /** Names of the variables that were left out, sorted (for logs; never their values). */
  removed: string[];
}

/**
 * The user's allow-list as a predicate: exact names (case-insensitive), or a prefix ending in `*`
 * (`NODE_*`). Blank entries are ignored.
 */
function userAllows(allowList: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const raw of allowList) {
    const n = raw.trim().toUpperCase();
    if (!n) continue;
    if (n.endsWith('*')) prefixes.push(n.slice(0, -1));
    else exact.add(n);
  }
  return (name) => {
    const n = name.toUpperCase();
    return exact.has(n) || prefixes.some((p) => p !== '' && n.startsWith(p));
  };
}

/**
 * The variables of `env` a command gets: the base names (and Windows' system names on Windows), the
 * locale categories, and what `allowList` names. Everything else is left out and named in `removed`.
 */
export function commandEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  allowList: readonly string[] = [],
  platform: NodeJS.Platform = process.platform,
): CommandEnvironment {
  const base = new Set([...BASE_NAMES, ...(platform === 'win32' ? WINDOWS_NAMES : [])]);
  const allowed = userAllows(allowList);
  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (base.has(upper) || LOCALE.test(upper) || allowed(name)) out[name] = value;
    else removed.push(name);
  }
  return { env: out, removed: removed.sort() };
}
