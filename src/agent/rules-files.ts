/**
 * Loads the workspace's rules and memory files (AGENTS.md, CLAUDE.md, .headroom/rules.md) for the
 * system prompt. A cloned repository is untrusted input, so every file goes through the workspace
 * port's guarded read: it must resolve (realpath) inside the workspace, be a regular file (a FIFO,
 * device or socket is refused before it is opened) and only the first `MAX_RULES_BYTES` are read.
 * All of it is asynchronous, and a file whose size and mtime did not change is not read again.
 */
import { errorMessage } from '../common/errors';
import { MAX_RULES_BYTES, type RulesFile } from '../context/system-prompt';
import type { WorkspacePort } from '../tools/ports';

/** The rules files Headroom reads, workspace-relative, in prompt order. */
export const RULES_FILE_PATHS: readonly string[] = ['AGENTS.md', 'CLAUDE.md', '.headroom/rules.md'];

interface CacheEntry {
  size: number;
  mtimeMs: number;
  file: RulesFile;
}

export interface RulesFileLoaderOptions {
  workspace: Pick<WorkspacePort, 'stat' | 'readFile'>;
  paths?: readonly string[];
  /** Told once why a rules file was skipped (outside the workspace, not a regular file, unreadable). */
  onProblem?: (message: string) => void;
}

export class RulesFileLoader {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly reported = new Set<string>();
  /** How many files were actually read (not served from the cache); for tests and traces. */
  reads = 0;

  constructor(private readonly options: RulesFileLoaderOptions) {}

  /** The rules files present now, in order. Never rejects: a file that cannot be used is skipped. */
  async load(): Promise<RulesFile[]> {
    const paths = this.options.paths ?? RULES_FILE_PATHS;
    const files = await Promise.all(paths.map((p) => this.loadOne(p)));
    return files.filter((f): f is RulesFile => f !== undefined);
  }

  private async loadOne(rel: string): Promise<RulesFile | undefined> {
    const { workspace } = this.options;
    try {
      const st = await workspace.stat(rel);
      if (!st) {
        this.cache.delete(rel);
        return undefined;
      }
      if (st.type !== 'file') {
        this.problem(rel, `${rel} is not a regular file; it is not read as a rules file.`);
        return undefined;
      }
      const hit = this.cache.get(rel);
      if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit.file;
      this.reads++;
      const text = await workspace.readFile(rel, { maxBytes: MAX_RULES_BYTES });
      const file: RulesFile = { path: rel, text, size: st.size };
      this.cache.set(rel, { size: st.size, mtimeMs: st.mtimeMs, file });
      return file;
    } catch (err) {
      this.cache.delete(rel);
      this.problem(rel, `${rel} was not read as a rules file: ${errorMessage(err)}`);
      return undefined;
    }
  }

  private problem(rel: string, message: string): void {
    const key = `${rel}\n${message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.options.onProblem?.(message);
  }
}
