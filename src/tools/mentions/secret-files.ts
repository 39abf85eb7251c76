/**
 * Files an @-mention never offers or reads, whatever .gitignore says: keys, credentials and dotenv
 * files. A user can still open them in the editor; Headroom does not attach them to a prompt.
 */

/** Folders whose whole content is credentials. */
const SECRET_FOLDERS = new Set(['.ssh', '.aws', '.gnupg', '.azure', '.kube', '.docker']);

/** File names (lower case) that hold credentials. */
const SECRET_NAMES = new Set(['.npmrc', '.pypirc', '.netrc', '_netrc', '.git-credentials', 'credentials', '.htpasswd']);

/** Name patterns (lower case) of keys and dotenv files; `.env.example` and friends are templates, not secrets. */
const SECRET_PATTERNS = [
  /^\.env(\.(?!example$|sample$|template$|dist$)[^/]+)?$/,
  /^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/,
  /\.(pem|key|p12|pfx|jks|keystore|kdbx|ppk|asc|gpg)$/,
];

/** Whether the workspace-relative path (forward slashes) names a secret file or lies in a secret folder. */
export function isSecretPath(relPath: string): boolean {
  const parts = relPath.toLowerCase().split('/');
  const name = parts[parts.length - 1];
  if (parts.slice(0, -1).some((p) => SECRET_FOLDERS.has(p))) return true;
  if (SECRET_FOLDERS.has(name)) return true;
  return SECRET_NAMES.has(name) || SECRET_PATTERNS.some((p) => p.test(name));
}
