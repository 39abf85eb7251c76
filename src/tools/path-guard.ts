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
