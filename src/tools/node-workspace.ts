/**
 * A `WorkspacePort` on node:fs and child_process. Used by tests and benches, and by the vscode
 * implementation as its fallback for anything the editor API does not cover.
 */
import { constants, existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HeadroomError } from '../common/errors';
import { scrubEnvironment } from './command-env';
import { runShellCommand } from './command-runner';
import { isInside, outsideError, resolveInside, resolveWriteTarget } from './path-guard';
import type { FileStat, WorkspacePort } from './ports';
import { decodeUtf8Prefix, readRegularFile } from './safe-file';
import { PATTERN_TIMEOUT_MS, runPatternJob } from './pattern-runner';
import { searchWithRipgrep } from './text-search';
import { modelNumber } from '../common/model-numbers';

export interface NodeWorkspaceOptions {
  /** A ripgrep binary; used when it exists, else the pure-JS search runs. */
  rgPath?: string;
  /**
   * Variables passed to commands even though their names look like secrets (setting
   * `headroom.commandEnvAllowList`). Everything else that looks like a key, token or password is
   * left out of a command's environment.
   */
  commandEnvAllowList?: readonly string[];
  /** Longest a listing or a search without ripgrep may go without progress (they evaluate model-supplied patterns). Default `PATTERN_TIMEOUT_MS`. */
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
  const patternTimeoutMs = options.patternTimeoutMs ?? PATTERN_TIMEOUT_MS;
  let realRootPromise: Promise<string> | undefined;
  const realRoot = () => (realRootPromise ??= fs.realpath(root).catch(() => root));
  const resolvePath = async (p: string) => resolveInside(root, await realRoot(), p);

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
      return runPatternJob(job, { timeoutMs: patternTimeoutMs, signal, what: `Listing files matching the glob "${glob}"` });
    },

    async searchText(pattern, opts) {
      if (options.rgPath && existsSync(options.rgPath)) {
        return searchWithRipgrep(options.rgPath, root, pattern, opts);
      }
      const { glob, maxResults, caseSensitive, signal } = opts;
      const job = { type: 'search-files', root, realRoot: await realRoot(), pattern, glob, maxResults, caseSensitive } as const;
      return runPatternJob(job, { timeoutMs: patternTimeoutMs, signal, what: `Searching for /${pattern}/${glob ? ` in "${glob}"` : ''}` });
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
      const { env } = scrubEnvironment(process.env, options.commandEnvAllowList);
      return runShellCommand(command, { cwd: dir, timeoutMs, signal, onOutput, env });
    },
  };
}
