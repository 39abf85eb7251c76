/**
 * A `WorkspacePort` on node:fs and child_process. Used by tests and benches, and by the vscode
 * implementation as its fallback for anything the editor API does not cover.
 */
import { constants, existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HeadroomError } from '../common/errors';
import { commandEnvironment } from './command-env';
import { commandLauncher } from './command-launcher';
import { runShellCommand } from './command-runner';
import { isInside, outsideError, resolveInside, resolveWriteTarget, toRelative } from './path-guard';
import type { FileStat, WorkspacePort } from './ports';
import { decodeUtf8Prefix, readRegularFile } from './safe-file';
import { PatternBudget, runPatternJob, WALK_TIMEOUT_MS } from './pattern-runner';
import { secretAllowList, secretReason, SecretFileError } from './secret-files';
import { searchWithRipgrep } from './text-search';
import { modelNumber } from '../common/model-numbers';

export interface NodeWorkspaceOptions {
  /** A ripgrep binary; used when it exists, else the pure-JS search runs. */
  rgPath?: string;
  /**
   * Variables passed to commands besides the path, home, locale and terminal ones (setting
   * `headroom.commandEnvAllowList`: names, or prefixes ending in `*`). Nothing else of the host's
   * environment reaches a command.
   */
  commandEnvAllowList?: readonly string[];
  /** Files the user allows although they look like secrets (setting `headroom.secretFiles.allow`, globs). */
  secretFilesAllow?: readonly string[];
  /**
   * Wall-clock budget of one listing, or one search without ripgrep: the walk and the model's pattern
   * together, however many files it visits. Default `WALK_TIMEOUT_MS`.
   */
  patternTimeoutMs?: number;
}

/** `readFile` without `maxBytes` refuses files larger than this rather than loading them. */
export const MAX_WHOLE_READ_BYTES = 64 * 1024 * 1024;

// The target is already resolved: a link appearing there since is a swap, and a FIFO must not block.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Writes `content` to the resolved path `abs` without following a link at the last component. */
async function writeNoFollow(abs: string, content: string): Promise<void> {
  const handle = await fs.open(abs, WRITE_FLAGS, 0o666);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

export function createNodeWorkspace(rootDir: string, options: NodeWorkspaceOptions = {}): WorkspacePort {
  const root = path.resolve(rootDir);
  const patternTimeoutMs = options.patternTimeoutMs ?? WALK_TIMEOUT_MS;
  let realRootPromise: Promise<string> | undefined;
  const realRoot = () => (realRootPromise ??= fs.realpath(root).catch(() => root));
  const resolvePath = async (p: string) => resolveInside(root, await realRoot(), p);
  const secretsAllowed = secretAllowList(options.secretFilesAllow);
  const secretFilter = { globs: options.secretFilesAllow ?? [], allowed: secretsAllowed };

  const notFound = (p: string) =>
    new HeadroomError('not_found', `File not found: "${p}". Use list_files or search_text to find the right path.`);

  return {
    root,
    resolvePath,

    async readFile(p, readOptions) {
      const abs = await resolvePath(p);
      const real = await fs.realpath(abs).catch(() => undefined);
      if (!real) throw notFound(p);
      if (!isInside(await realRoot(), real)) throw outsideError(p, 'a symbolic link points outside');
      const rel = toRelative(root, abs);
      const realRel = toRelative(await realRoot(), real);
      const secret = secretReason(rel, realRel, secretsAllowed);
      if (secret && readOptions?.allowSecret !== 'any' && readOptions?.allowSecret !== real)
        throw new SecretFileError(rel, realRel, real, secret);
      const st = await fs.stat(real).catch(() => undefined);
      if (st?.isDirectory())
        throw new HeadroomError('invalid_tool_input', `"${p}" is a folder, not a file. Use list_files to see its contents.`);
      const cap = readOptions?.maxBytes ?? MAX_WHOLE_READ_BYTES;
      const read = await readRegularFile(real, cap, p);
      if (read.truncated && readOptions?.maxBytes === undefined) {
        throw new HeadroomError('invalid_tool_input', `"${p}" is ${modelNumber(read.size)} bytes, too large to read whole.`);
      }
      return decodeUtf8Prefix(read.bytes, read.truncated);
    },

    async stat(p): Promise<FileStat | undefined> {
      const abs = await resolvePath(p);
      const st = await fs.stat(abs).catch(() => undefined);
      if (!st) return undefined;
      return { type: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other', size: st.size, mtimeMs: st.mtimeMs };
    },

    async listFiles(glob, { respectGitignore, limit, signal }) {
      const job = { type: 'list-files', root, realRoot: await realRoot(), glob, respectGitignore, limit } as const;
      const budget = new PatternBudget(patternTimeoutMs);
      return runPatternJob(job, { budget, signal, what: `Listing files matching the glob "${glob}"` });
    },

    async searchText(pattern, opts) {
      if (options.rgPath && existsSync(options.rgPath)) {
        return searchWithRipgrep(options.rgPath, root, pattern, opts, secretFilter);
      }
      const { glob, maxResults, caseSensitive, signal } = opts;
      const job = {
        type: 'search-files',
        root,
        realRoot: await realRoot(),
        pattern,
        glob,
        maxResults,
        caseSensitive,
        secretFilesAllow: options.secretFilesAllow ?? [],
      } as const;
      const budget = new PatternBudget(patternTimeoutMs);
      return runPatternJob(job, { budget, signal, what: `Searching for /${pattern}/${glob ? ` in "${glob}"` : ''}` });
    },

    async resolveWriteTarget(p) {
      return (await resolveWriteTarget(root, await realRoot(), p)).rel;
    },

    async writeFile(p, content) {
      const target = await resolveWriteTarget(root, await realRoot(), p);
      await fs.mkdir(path.dirname(target.abs), { recursive: true });
      await writeNoFollow(target.abs, content);
    },

    async applyEdit(p, newContent) {
      const target = await resolveWriteTarget(root, await realRoot(), p);
      if (!target.exists) throw notFound(p);
      await writeNoFollow(target.abs, newContent);
    },

    async runCommand(command, { cwd, timeoutMs, signal, onOutput }) {
      const dir = await resolvePath(cwd ?? '.');
      const st = await fs.stat(dir).catch(() => undefined);
      if (!st?.isDirectory()) throw new HeadroomError('invalid_tool_input', `Working folder "${cwd}" does not exist in the workspace.`);
      const { env } = commandEnvironment(process.env, options.commandEnvAllowList);
      // Isolated from the host's processes where the system allows it (their /proc/<pid>/environ).
      const launcher = await commandLauncher();
      return runShellCommand(command, { cwd: dir, timeoutMs, signal, onOutput, env, launcher });
    },
  };
}
