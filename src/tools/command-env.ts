/**
 * The environment a model-run command gets: the host's, minus anything that looks like a secret.
 * The extension host's environment usually holds API keys (`OPENAI_API_KEY`, `GITHUB_TOKEN`…); a
 * command could print them into the transcript, which then goes to the provider. Pure.
 */

/** Variable names that look like keys, tokens, secrets, passwords or credentials. */
export const SECRET_NAME_PATTERN = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE/i;

/** A value with a password in a URL (`postgres://user:pass@host`), whatever its variable's name. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

export interface ScrubbedEnvironment {
  env: Record<string, string>;
  /** Names of the variables that were left out, sorted (for logs; never their values). */
  removed: string[];
}

/**
 * Copies `env` without the variables whose name looks like a secret (`SECRET_NAME_PATTERN`) or whose
 * value carries a password in a URL. A name in `allowList` (exact, case-insensitive) is always kept:
 * the user's way to pass e.g. `NPM_TOKEN` to their build on purpose.
 */
export function scrubEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  allowList: readonly string[] = [],
): ScrubbedEnvironment {
  const allowed = new Set(allowList.map((n) => n.trim().toUpperCase()).filter((n) => n !== ''));
  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const secret = SECRET_NAME_PATTERN.test(name) || URL_WITH_PASSWORD.test(value);
    if (secret && !allowed.has(name.toUpperCase())) removed.push(name);
    else out[name] = value;
  }
  return { env: out, removed: removed.sort() };
}
