/**
 * Where a workspace's Headroom sessions live. VS Code gives an extension host the workspace storage
 * folder `<id>`, or `<id>-2`, `<id>-3`, … while another extension host still holds `<id>`'s lock
 * (`vs/workbench/api/node/extHostStoragePaths.ts`, `_getWorkspaceStorageURI`): a window reload
 * overlaps the old host's shutdown, and the new window got an empty folder, so it started a new
 * session instead of resuming the user's. Headroom keeps one store per workspace, in the first
 * folder; its own lock (`store.lock`) decides which window writes. Pure apart from `exists`.
 */
import * as path from 'node:path';

export function sharedStorageRoot(storagePath: string, exists: (folder: string) => boolean): string {
  const workspaceFolder = path.dirname(storagePath);
  const suffixed = /^(.+)-(\d+)$/.exec(path.basename(workspaceFolder));
  if (!suffixed) return storagePath;
  const first = path.join(path.dirname(workspaceFolder), suffixed[1]);
  return exists(first) ? path.join(first, path.basename(storagePath)) : storagePath;
}
