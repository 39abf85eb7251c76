import assert from 'node:assert/strict';
import * as path from 'node:path';
import { sharedStorageRoot } from '../../src/platform/storage-root';

/**
 * A window VS Code gave a second workspace storage folder (`<id>-2`, while the reloading window's old
 * extension host still held `<id>`) keeps its sessions in the first one: the e2e suite saw a reload
 * start a new, empty session in `22ea0c95-2` instead of resuming the user's.
 */
describe('the workspace storage folder sessions live in', () => {
  const ws = path.join('/u', 'workspaceStorage');
  const ext = 'headroom-dev.headroom';
  const present =
    (...folders: string[]) =>
    (f: string) =>
      folders.includes(f);

  it('is the first folder when VS Code gave this window a suffixed one', () => {
    assert.equal(sharedStorageRoot(path.join(ws, '22ea0c95-2', ext), present(path.join(ws, '22ea0c95'))), path.join(ws, '22ea0c95', ext));
    assert.equal(sharedStorageRoot(path.join(ws, '22ea0c95-13', ext), present(path.join(ws, '22ea0c95'))), path.join(ws, '22ea0c95', ext));
  });

  it('is the given folder otherwise: no suffix, or no first folder to share', () => {
    assert.equal(sharedStorageRoot(path.join(ws, '22ea0c95', ext), present()), path.join(ws, '22ea0c95', ext));
    assert.equal(sharedStorageRoot(path.join(ws, '22ea0c95-2', ext), present()), path.join(ws, '22ea0c95-2', ext));
    assert.equal(sharedStorageRoot(path.join(ws, '1732712345678', ext), present()), path.join(ws, '1732712345678', ext));
  });
});
