/**
 * Keeps tool paths inside the workspace: lexically (`..`, absolute paths) and physically (a symbolic
 * link whose target lies outside). Used by the node workspace; the vscode one applies the same rule.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HeadroomError } from '../common/errors';

/** True when `candidate` is `root` or below it (both absolute and normalized). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function outsideError(requested: string, why: string): HeadroomError {
  return new HeadroomError(
    'invalid_tool_input',
    `Path "${requested}" is outside the workspace (${why}). Only files inside the workspace folder can be used; ` +
      'give a path relative to the workspace root.',
  );
}

/**
 * Resolves `requested` (workspace-relative, or absolute inside the workspace) to an absolute path.
 * Rejects with a `HeadroomError` ('invalid_tool_input') when it leaves the workspace, also through a
 * symbolic link in any existing part of the path. `realRoot` is `fs.realpath(root)`.
 */
export async function resolveInside(root: string, realRoot: string, requested: string): Promise<string> {
  if (requested.includes('\0')) throw new HeadroomError('invalid_tool_input', `Path "${requested}" contains a NUL character.`);
  const abs = path.resolve(root, requested);
  if (!isInside(root, abs)) {
    throw outsideError(requested, path.isAbsolute(requested) ? 'absolute path elsewhere' : 'it goes above the workspace root');
  }
  // The nearest existing ancestor decides where the path really lands.
  let probe = abs;
  for (;;) {
    try {
      const real = await fs.realpath(probe);
      if (!isInside(realRoot, real)) throw outsideError(requested, 'a symbolic link points outside');
      return abs;
    } catch (err) {
      if (err instanceof HeadroomError) throw err;
      const parent = path.dirname(probe);
      if (parent === probe || !isInside(root, parent)) return abs;
      probe = parent;
    }
  }
}

/** Workspace-relative form of an absolute path inside `root`, with forward slashes. */
export function toRelative(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/** Where a write really lands: the absolute path with every link resolved, and its workspace-relative form. */
export interface WriteTarget {
  abs: string;
  rel: string;
  /** False when the file does not exist yet (it, and maybe folders above it, will be created). */
  exists: boolean;
}

/**
 * Resolves the file a write to `requested` would really create or change, walking the path from
 * the workspace root one component at a time with `lstat`. Every symbolic link met is resolved and
 * must land inside the workspace; a dangling link is refused (writing through it would create a file
 * wherever it points, while the approval names the link); so is a special file (FIFO, device, socket)
 * or a file used as a folder. Rejects with a `HeadroomError` ('invalid_tool_input') whose message
 * says what to do instead. `realRoot` is `fs.realpath(root)`.
 */
export async function resolveWriteTarget(
  root: string,
  realRoot: string,
  requested: string,
  opts: { noLinks?: boolean } = {},
): Promise<WriteTarget> {
  const abs = await resolveInside(root, realRoot, requested);
  const parts = path
    .relative(root, abs)
    .split(path.sep)
    .filter((p) => p !== '');
  if (parts.length === 0) throw new HeadroomError('invalid_tool_input', `"${requested}" is the workspace folder itself; give a file path.`);
  let cur = realRoot;
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    const next = path.join(cur, parts[i]);
    const shown = parts.slice(0, i + 1).join('/');
    const st = await fs.lstat(next).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw new HeadroomError('invalid_tool_input', `"${shown}" cannot be checked (${err.code ?? 'error'}); choose another path.`, {
        cause: err,
      });
    });
    if (!st) {
      const target = path.join(next, ...parts.slice(i + 1));
      return { abs: target, rel: toRelative(realRoot, target), exists: false };
    }
    if (st.isSymbolicLink()) {
      const linkText = await fs.readlink(next).catch(() => '?');
      // A writer that puts back what was recorded (a checkpoint restore) follows no link: a folder
      // replaced by a link since, even to another place in the workspace, would move its writes there.
      if (opts.noLinks)
        throw new HeadroomError('invalid_tool_input', `"${shown}" is now a symbolic link to "${linkText}"; nothing is written through it.`);
      const real = await fs.realpath(next).catch(() => undefined);
      if (real === undefined) {
        throw new HeadroomError(
          'invalid_tool_input',
          `"${shown}" is a symbolic link to "${linkText}", which does not exist; writing through it is refused because the file ` +
            'would be created wherever the link points. Write to a path that is not a link, or ask the user to fix the link.',
        );
      }
      if (!isInside(realRoot, real)) throw outsideError(requested, `"${shown}" is a symbolic link to "${linkText}"`);
      cur = real;
    } else {
      cur = next;
    }
    const kind = st.isSymbolicLink() ? await fs.stat(cur) : st;
    if (last) {
      if (kind.isDirectory()) throw new HeadroomError('invalid_tool_input', `"${requested}" is a folder; give a file path.`);
      if (!kind.isFile())
        throw new HeadroomError(
          'invalid_tool_input',
          `"${requested}" exists and is not a regular file (a named pipe, device or socket); choose another path.`,
        );
      return { abs: cur, rel: toRelative(realRoot, cur), exists: true };
    }
    if (!kind.isDirectory())
      throw new HeadroomError('invalid_tool_input', `"${shown}" is a file, not a folder, so "${requested}" cannot be created below it.`);
  }
  throw new Error('unreachable');
}
