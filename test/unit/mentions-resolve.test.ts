import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MentionIndex } from '../../src/tools/mentions/mention-index';
import { MAX_MENTION_READ_BYTES, resolveMentions, type MentionSources } from '../../src/tools/mentions/resolve-mentions';
import { isSecretPath } from '../../src/tools/secret-files';
import { removeDir, tempWorkspace } from '../fixtures/tools/tool-context';

/** @-mentions are hostile input: only workspace files that are not ignored, secret, binary or huge are read. */
describe('mentions: resolving a prompt’s @-mentions', () => {
  let root: string;
  let outside: string;
  const SECRET = 'BEGIN OPENSSH PRIVATE KEY outside-the-workspace';

  beforeEach(async () => {
    root = await tempWorkspace({
      'src/app.ts': 'export const answer = 42;\n',
      'src/util/strings.ts': 'export const pad = 1;\n',
      '.gitignore': 'build/\n*.log\n',
      'build/out.js': 'compiled',
      'debug.log': 'log line',
      '.env': 'API_KEY=sk-live-123',
      '.env.example': 'API_KEY=',
      'keys/server.pem': 'PEM',
      'a"<b>&.txt': 'hostile name',
    });
    outside = await fs.mkdtemp(path.join(os.tmpdir(), 'headroom-outside-'));
    await fs.mkdir(path.join(outside, '.ssh'));
    await fs.writeFile(path.join(outside, '.ssh', 'id_rsa'), SECRET);
  });
  afterEach(async () => {
    await removeDir(root);
    await removeDir(outside);
  });

  function sources(overrides: Partial<MentionSources> = {}): MentionSources {
    const index = new MentionIndex(root);
    return {
      root,
      entries: () => index.search('', Number.MAX_SAFE_INTEGER),
      selection: () => Promise.resolve(undefined),
      problems: () => Promise.resolve([]),
      ...overrides,
    };
  }

  it('attaches a workspace file with its content, named by its workspace path', async () => {
    const [r] = await resolveMentions([{ kind: 'file', path: 'src/app.ts' }], sources());
    assert.equal(r.attached, true);
    assert.equal(r.text, '<file path="src/app.ts">\nexport const answer = 42;\n</file>');
    assert.deepEqual(r.chip, { kind: 'file', label: 'src/app.ts', path: 'src/app.ts' });
  });

  it('refuses paths that leave the workspace: .., absolute, and a symbolic link pointing out', async () => {
    const rel = path.relative(root, path.join(outside, '.ssh', 'id_rsa'));
    await fs.symlink(path.join(outside, '.ssh', 'id_rsa'), path.join(root, 'innocent.txt'));
    await fs.symlink(path.join(outside, '.ssh'), path.join(root, 'linked-dir'));
    const resolved = await resolveMentions(
      [
        { kind: 'file', path: '../../.ssh/id_rsa' },
        { kind: 'file', path: rel },
        { kind: 'file', path: path.join(outside, '.ssh', 'id_rsa') },
        { kind: 'file', path: 'innocent.txt' },
        { kind: 'file', path: 'linked-dir/id_rsa' },
        { kind: 'folder', path: 'linked-dir' },
        { kind: 'folder', path: '..' },
      ],
      sources(),
    );
    assert.equal(resolved.length, 7);
    for (const r of resolved) {
      assert.equal(r.attached, false, r.chip.label);
      assert.ok(r.chip.problem, r.chip.label);
      assert.doesNotMatch(r.text, /PRIVATE KEY/);
      assert.match(r.text, /was not attached: .*outside/);
    }
  });

  it('refuses ignored and secret files, but a template like .env.example is fine', async () => {
    const resolved = await resolveMentions(
      [
        { kind: 'file', path: 'build/out.js' },
        { kind: 'file', path: 'debug.log' },
        { kind: 'file', path: '.env' },
        { kind: 'file', path: 'keys/server.pem' },
        { kind: 'folder', path: 'build' },
        { kind: 'file', path: '.git/config' },
        { kind: 'file', path: '.env.example' },
      ],
      sources(),
    );
    assert.deepEqual(
      resolved.map((r) => r.attached),
      [false, false, false, false, false, false, true],
    );
    assert.match(resolved[0].chip.problem ?? '', /ignored by \.gitignore/);
    assert.match(resolved[2].chip.problem ?? '', /secret/);
    assert.ok(resolved.every((r) => !/sk-live|compiled|log line/.test(r.text)));
  });

  it('names a binary file and a huge one without putting their bytes in the message', async () => {
    await fs.writeFile(path.join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x41, 0x42]));
    const huge = path.join(root, 'huge.txt');
    const handle = await fs.open(huge, 'w');
    await handle.truncate(MAX_MENTION_READ_BYTES + 1); // sparse: nothing is written
    await handle.close();
    const [bin, big] = await resolveMentions(
      [
        { kind: 'file', path: 'logo.png' },
        { kind: 'file', path: 'huge.txt' },
      ],
      sources(),
    );
    assert.equal(bin.attached, false);
    assert.match(bin.chip.problem ?? '', /binary file \(10 bytes\)/);
    assert.equal(big.attached, false);
    assert.match(big.chip.problem ?? '', /20,971,521 bytes, too large/);
    assert.ok(big.text.length < 300, 'only a note');
  });

  it('escapes a hostile file name in the block the model reads', async () => {
    const [r] = await resolveMentions([{ kind: 'file', path: 'a"<b>&.txt' }], sources());
    assert.equal(r.attached, true);
    assert.ok(r.text.startsWith('<file path="a&quot;&lt;b&gt;&amp;.txt">\n'), r.text);
  });

  it('lists a folder without its ignored or secret entries', async () => {
    const [src, top] = await resolveMentions(
      [
        { kind: 'folder', path: 'src' },
        { kind: 'folder', path: '.' },
      ],
      sources(),
    );
    assert.equal(src.text, '<folder path="src" entries="3">\nsrc/app.ts\nsrc/util/\nsrc/util/strings.ts\n</folder>');
    assert.equal(top.attached, true);
    assert.doesNotMatch(top.text, /build|debug\.log|\.env\n|server\.pem/);
    assert.match(top.text, /\.env\.example/);
  });

  it('attaches the editor selection and the problems from the sources, once each', async () => {
    const resolved = await resolveMentions(
      [{ kind: 'selection' }, { kind: 'problems' }, { kind: 'problems' }],
      sources({
        selection: () => Promise.resolve({ path: 'src/app.ts', startLine: 1, endLine: 1, text: 'answer = 42' }),
        problems: () => Promise.resolve(['src/app.ts:1:14 error [ts]: Type "string" is not assignable']),
      }),
    );
    assert.equal(resolved.length, 2);
    assert.equal(resolved[0].text, '<selection path="src/app.ts" lines="1">\nanswer = 42\n</selection>');
    assert.equal(resolved[0].chip.label, 'src/app.ts:1');
    assert.match(resolved[1].text, /^<problems count="1">\nsrc\/app\.ts:1:14 error/);
    const none = await resolveMentions([{ kind: 'selection' }], sources());
    assert.equal(none[0].attached, false);
  });

  it('says secret-looking paths are secrets', () => {
    for (const p of ['.env', '.env.local', 'a/.ssh/config', 'id_ed25519', 'certs/x.key', '.npmrc', '.aws/credentials'])
      assert.ok(isSecretPath(p), p);
    for (const p of ['.env.example', 'src/env.ts', 'keys.md', 'README.md']) assert.ok(!isSecretPath(p), p);
  });
});

describe('mentions: the picker’s workspace entries', () => {
  let root: string;
  let outside: string;
  beforeEach(async () => {
    root = await tempWorkspace({
      'src/panel/chat-view.ts': '',
      'src/panel/composer.ts': '',
      'test/composer.test.ts': '',
      'node_modules/x/index.js': '',
      '.gitignore': 'node_modules/\n',
      '.env': 'KEY=1',
    });
    outside = await fs.mkdtemp(path.join(os.tmpdir(), 'headroom-outside-'));
    await fs.writeFile(path.join(outside, 'secret.txt'), 'x');
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
  });
  afterEach(async () => {
    await removeDir(root);
    await removeDir(outside);
  });

  it('offers files and folders, never ignored, secret or outside ones, best match first', async () => {
    const index = new MentionIndex(root);
    const all = (await index.search('', 100)).map((o) => `${o.kind}:${o.path}`);
    assert.deepEqual(all.sort(), [
      'file:.gitignore',
      'file:src/panel/chat-view.ts',
      'file:src/panel/composer.ts',
      'file:test/composer.test.ts',
      'folder:src',
      'folder:src/panel',
      'folder:test',
    ]);
    const composer = await index.search('composer', 10);
    assert.deepEqual(
      composer.map((o) => o.path),
      ['src/panel/composer.ts', 'test/composer.test.ts'],
    );
    const fuzzy = await index.search('pnlchat', 10);
    assert.equal(fuzzy[0]?.path, 'src/panel/chat-view.ts');
  });
});
