import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of package.json these tests read. */
interface Manifest {
  activationEvents?: string[];
  capabilities?: { untrustedWorkspaces?: { supported: boolean | 'limited'; description?: string; restrictedConfigurations?: string[] } };
  contributes: {
    viewsContainers: { activitybar: Array<{ id: string; title: string; icon: string }> };
    views: { headroom: Array<{ id: string; type: string }> };
    commands: Array<{ command: string; category?: string; title: string }>;
    configuration: { properties: Record<string, { description?: string; markdownDescription?: string; type?: string; scope?: string }> };
  };
}

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

describe('package.json contributions', () => {
  it('never activates eagerly', () => {
    assert.ok(!(pkg.activationEvents ?? []).includes('*'));
    assert.ok(!(pkg.activationEvents ?? []).includes('onStartupFinished'));
  });

  it('contributes the Headroom view container with the chat webview view', () => {
    const container = pkg.contributes.viewsContainers.activitybar.find((c) => c.id === 'headroom');
    assert.ok(container, 'the headroom view container');
    assert.equal(container.title, 'Headroom');
    assert.match(container.icon, /^media\/.+\.svg$/);
    assert.deepEqual(
      pkg.contributes.views.headroom.map((v) => [v.id, v.type]),
      [['headroom.chatView', 'webview']],
    );
  });

  it('puts every command under the Headroom category with a headroom.* id and a Title Case title', () => {
    for (const c of pkg.contributes.commands) {
      assert.match(c.command, /^headroom\.[a-zA-Z]+$/);
      assert.equal(c.category, 'Headroom');
      assert.match(c.title, /^([A-Z][\w…'-]*)( [A-Z][\w…'-]*|( (to|a|an|the|of|in|on|for)))*$/, `${c.title} is Title Case`);
    }
  });

  it('keeps the command environment allow-list out of workspace settings (a repository must not unlock secrets)', () => {
    const prop = pkg.contributes.configuration.properties['headroom.commandEnvAllowList'];
    assert.equal(prop.type, 'array');
    assert.equal(prop.scope, 'application');
  });

  it('keeps the secret-file allow-list out of workspace settings (a repository must not open its own .env to the model)', () => {
    const prop = pkg.contributes.configuration.properties['headroom.secretFiles.allow'];
    assert.equal(prop.type, 'array');
    assert.equal(prop.scope, 'application');
  });

  it('keeps auto-approval out of workspace settings (a repository must not approve its own commands)', () => {
    for (const key of ['headroom.autoApprove.edits', 'headroom.autoApprove.commands']) {
      assert.equal(pkg.contributes.configuration.properties[key].scope, 'application', key);
    }
  });

  it('supports untrusted workspaces in a limited way, restricting every setting that redirects keys or runs things', () => {
    const trust = pkg.capabilities?.untrustedWorkspaces;
    assert.ok(trust, 'capabilities.untrustedWorkspaces is declared');
    assert.equal(trust.supported, 'limited');
    assert.match(trust.description ?? '', /read-only/);
    // headroom.thinking spends the user's tokens: a repository's settings must not raise it.
    for (const key of [
      'headroom.baseUrl',
      'headroom.provider',
      'headroom.models',
      'headroom.model',
      'headroom.thinking',
      'headroom.externalTools.allow',
    ]) {
      assert.ok(trust.restrictedConfigurations?.includes(key), `${key} is restricted`);
      assert.ok(pkg.contributes.configuration.properties[key], `${key} exists`);
    }
  });

  it('only user (or remote) settings can choose where the key goes or what runs without asking', () => {
    const props = pkg.contributes.configuration.properties;
    // "machine": user or remote settings only; "machine-overridable" or the default "window" let a repository set it.
    for (const key of ['headroom.baseUrl', 'headroom.provider', 'headroom.externalTools.allow']) {
      const scope = props[key].scope ?? 'window';
      assert.ok(['machine', 'application'].includes(scope), `${key} has scope ${scope}`);
    }
  });

  it('describes every headroom.* setting', () => {
    for (const [key, prop] of Object.entries(pkg.contributes.configuration.properties)) {
      assert.match(key, /^headroom\./);
      assert.ok((prop.description ?? prop.markdownDescription ?? '').length > 10, `${key} has a description`);
    }
  });
});

describe('the .vsix holds only what a user needs (vsce ls)', function () {
  this.timeout(120_000);
  let files: string[] = [];

  before(() => {
    execFileSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: root, stdio: 'ignore' });
    const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
    const out = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
    files = out
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  });

  it('includes the host bundles, the wasm, the webview bundle and the icons', () => {
    for (const f of [
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'dist/extension.js',
      'dist/host.js',
      'dist/pattern-worker.js',
      'dist/sql-wasm.wasm',
      'media/webview.js',
      'media/webview.css',
      'media/icon.png',
      'media/headroom.svg',
    ]) {
      assert.ok(files.includes(f), `${f} is packaged (got: ${files.join(', ')})`);
    }
  });

  it('has no sources, tests, maps, scripts or node_modules', () => {
    const bad = files.filter((f) =>
      /^(src|test|bench|scripts|webview-ui|node_modules|\.vscode-test|test-results)\/|\.map$|\.ts$|^\.|tsconfig|esbuild\.mjs/.test(f),
    );
    assert.deepEqual(bad, []);
  });
});
