/**
 * The one secret-file policy for every way a file's content can reach the model: @-mentions, the
 * model's `read_file` and `search_text`, the rules files, the files re-read after a compaction. A file
 * is a secret when its own name, or the name it really has after every link is resolved, is one of
 * `SECRET_RULES` (dotenv files, keys, credentials, infrastructure state…), unless the user listed it in
 * `headroom.secretFiles.allow`. What happens then is the reader's: `read_file` asks the user, a
 * mention or a rules file is refused (the setting lifts it), a search skips the file.
 */
import picomatch from 'picomatch';
import { HeadroomError } from '../common/errors';

interface SecretRule {
  /** Globs on a workspace-relative path; a glob without `/` matches a name at any depth. */
  globs: readonly string[];
  /** Names that match `globs` but are templates, not secrets. */
  except?: readonly string[];
  /** What the file is, for the question and the refusal ("a dotenv file"). */
  kind: string;
}

/** Folders whose whole content is credentials, at any depth. */
export const SECRET_FOLDERS: readonly string[] = ['.ssh', '.aws', '.gnupg', '.azure', '.kube', '.docker', '.gcloud', '.password-store'];

export const SECRET_RULES: readonly SecretRule[] = [
  {
    globs: ['.env', '.env.*'],
    except: ['.env.example', '.env.sample', '.env.template', '.env.dist', '.env.defaults'],
    kind: 'a dotenv file',
  },
  { globs: ['.envrc'], kind: 'a direnv file (it usually exports secrets)' },
  { globs: ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk', 'id_*.pub'], kind: 'an SSH key' },
  {
    globs: ['*.pem', '*.key', '*.p8', '*.p12', '*.pfx', '*.jks', '*.keystore', '*.ppk', '*.asc', '*.gpg'],
    kind: 'a key or certificate file',
  },
  { globs: ['*.kdbx', '.vault-token'], kind: 'a password vault or token file' },
  {
    globs: ['credentials', 'credentials.json', 'credentials.yml', 'credentials.yaml', 'credentials.toml', 'client_secret*.json'],
    kind: 'a credentials file',
  },
  { globs: ['service-account*.json', 'application_default_credentials.json', 'gha-creds-*.json'], kind: 'a cloud credentials file' },
  { globs: ['secrets.yml', 'secrets.yaml', 'secrets.json', 'secrets.toml', '*.secrets'], kind: 'a secrets file' },
  { globs: ['.netrc', '_netrc', '.git-credentials', '.htpasswd', '.pgpass', '.my.cnf'], kind: 'a file of passwords' },
  {
    globs: ['.npmrc', '.pypirc', '.gem/credentials', '.cargo/credentials', '.cargo/credentials.toml', '.dockercfg', '.s3cfg', '.boto'],
    kind: 'a package or cloud tool configuration that holds tokens',
  },
  { globs: ['kubeconfig', '*.kubeconfig', 'kubeconfig.y*ml'], kind: 'a Kubernetes configuration (it holds cluster credentials)' },
  {
    globs: ['*.tfstate', '*.tfstate.backup', '*.tfvars', '.terraformrc', 'terraform.rc'],
    kind: 'Terraform state or variables (they hold secrets in clear)',
  },
];

// A glob without `/` matches a name at any depth (picomatch's basename option); one with `/` matches a
// path at any depth too.
const anyDepth = (glob: string) => (glob.includes('/') && !glob.startsWith('**/') ? `**/${glob}` : glob);
const matcher = (globs: readonly string[]) => picomatch(globs.map(anyDepth), { dot: true, nocase: true, basename: true });
const compiled = SECRET_RULES.map((r) => ({
  kind: r.kind,
  match: matcher(r.globs),
  except: new Set((r.except ?? []).map((e) => e.toLowerCase())),
}));

/**
 * What the workspace-relative path (forward slashes) is when it looks like a secret, by its own name
 * or a folder it lies in; undefined otherwise. Pure.
 */
export function secretKind(relPath: string): string | undefined {
  const parts = relPath.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => SECRET_FOLDERS.includes(p.toLowerCase()))) return 'a file in a folder of credentials';
  const name = (parts[parts.length - 1] ?? '').toLowerCase();
  const rel = parts.join('/');
  for (const rule of compiled) {
    if (!rule.except.has(name) && rule.match(rel)) return rule.kind;
  }
  return undefined;
}

/** True when `secretKind` names the path (the mention picker hides such rows). */
export function isSecretPath(relPath: string): boolean {
  return secretKind(relPath) !== undefined;
}

/** The user's own exceptions (`headroom.secretFiles.allow`: globs on workspace-relative paths). */
export interface SecretAllowList {
  allows(relPath: string): boolean;
}

export function secretAllowList(globs: readonly string[] = []): SecretAllowList {
  const list = globs.map((g) => g.trim().replace(/^\.\//, '')).filter((g) => g !== '');
  if (!list.length) return { allows: () => false };
  const match = matcher(list);
  return { allows: (rel) => match(rel) };
}

/**
 * Why the file at `rel` (its path as asked) whose real path is `realRel` (both workspace-relative,
 * after every link) is a secret, naming the real file when a link leads to it; undefined when it is
 * not one or the user allowed both names.
 */
export function secretReason(rel: string, realRel: string, allow: SecretAllowList): string | undefined {
  for (const p of rel === realRel ? [rel] : [rel, realRel]) {
    const kind = secretKind(p);
    if (kind && !allow.allows(p)) return p === rel ? `it looks like ${kind}` : `it leads to ${p}, which looks like ${kind}`;
  }
  return undefined;
}

/**
 * A read refused because the file looks like a secret. `real` is the absolute real path: a reader that
 * asked the user passes it back (`ReadFileOptions.allowSecret`) to read exactly the file they approved.
 */
export class SecretFileError extends HeadroomError {
  constructor(
    readonly rel: string,
    readonly realRel: string,
    readonly real: string,
    readonly reason: string,
  ) {
    super('invalid_tool_input', `"${rel}" was not read: ${reason}.`);
    this.name = 'SecretFileError';
  }
}
