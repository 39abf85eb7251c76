/**
 * The front door's install helpers: nested npm installs do not inherit the outer npm's variables (its
 * user agent names Node 20 and made code-server's postinstall refuse), and leftovers of a failed or
 * interrupted install are swept instead of poisoning every later attempt.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scrubbedEnv, sweepLeftovers } from '../../scripts/lib/code-server.mjs';

describe('front door: nested installs', () => {
  it('drops every npm_* variable and the node_modules/.bin folders npm put on PATH', () => {
    const env = scrubbedEnv({
      PATH: '/work/x/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/usr/local/bin:/usr/bin',
      npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
      npm_config_nodedir: '/usr/include/node',
      npm_lifecycle_event: 'test',
      NPM_CONFIG_PREFIX: '/x',
      INIT_CWD: '/work/x',
      HOME: '/root',
    });
    assert.deepEqual(Object.keys(env).sort(), ['HOME', 'PATH']);
    assert.equal(env.PATH, '/usr/local/bin:/usr/bin');
  });

  it('sweeps a partial install whose installer is gone and the old layout, keeps a live one and complete installs', () => {
    const cache = mkdtempSync(join(tmpdir(), 'headroom-cache-'));
    try {
      const dead = join(cache, 'code-server-4.139.1.partial-999999999');
      const live = join(cache, `code-server-4.139.1.partial-${process.pid}`);
      const done = join(cache, 'code-server-4.139.1');
      for (const d of [dead, live, done, join(cache, 'node_modules')]) mkdirSync(d, { recursive: true });
      writeFileSync(join(cache, '.code-server-4.139.1.ok'), '');
      sweepLeftovers(cache, () => {});
      assert.equal(existsSync(dead), false, 'dead partial install removed');
      assert.equal(existsSync(join(cache, 'node_modules')), false, '0.1.0 layout removed');
      assert.equal(existsSync(join(cache, '.code-server-4.139.1.ok')), false, '0.1.0 marker removed');
      assert.equal(existsSync(live), true, 'a running install is left alone');
      assert.equal(existsSync(done), true, 'the complete install is kept');
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
