/**
 * Attacks through the rules files a cloned repository can commit (AGENTS.md, CLAUDE.md,
 * .headroom/rules.md): links to secrets outside the workspace, special files that would block or
 * exhaust the host, and huge files. Each must be refused or read bounded, and quickly.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RulesFileLoader } from '../../src/agent/rules-files';
import { buildSystemSections, MAX_RULES_BYTES } from '../../src/context/system-prompt';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { removeDir, tempWorkspace } from '../fixtures/tools/tool-context';

/** Generous: the point is "not seconds per turn, not a hang", on a loaded machine. */
const FAST_MS = 5_000;

describe('security: rules files are untrusted input', function () {
  this.timeout(30_000);
  let root: string;
  let home: string;
  const problems: string[] = [];

  beforeEach(async () => {
    problems.length = 0;
    home = await tempWorkspace({ '.ssh/id_rsa': '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n' });
    root = await tempWorkspace({ 'src/a.ts': 'export {};\n' });
  });
  afterEach(async () => {
    await removeDir(root);
    await removeDir(home);
  });

  function loader(): RulesFileLoader {
    return new RulesFileLoader({ workspace: createNodeWorkspace(root), onProblem: (m) => problems.push(m) });
  }

  async function timedLoad(l: RulesFileLoader) {
    const started = Date.now();
    const rules = await l.load();
    return { rules, ms: Date.now() - started };
  }

  it('refuses AGENTS.md linked to a private key outside the workspace', async () => {
    await fs.symlink(path.join(home, '.ssh/id_rsa'), path.join(root, 'AGENTS.md'));
    const { rules } = await timedLoad(loader());
    assert.deepEqual(rules, []);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /AGENTS\.md .*outside the workspace/);
    const prompt = buildSystemSections({ rules })
      .map((s) => s.text)
      .join('\n');
    assert.doesNotMatch(prompt, /secret-key-material/);
  });

  it('refuses CLAUDE.md linked to /proc/self/environ', async function () {
    if (!existsSync('/proc/self/environ')) this.skip();
    await fs.symlink('/proc/self/environ', path.join(root, 'CLAUDE.md'));
    const { rules, ms } = await timedLoad(loader());
    assert.deepEqual(rules, []);
    assert.match(problems.join('\n'), /CLAUDE\.md .*outside the workspace/);
    assert.ok(ms < FAST_MS, `took ${ms} ms`);
  });

  it('refuses AGENTS.md linked to /dev/zero without reading it', async function () {
    if (!existsSync('/dev/zero')) this.skip();
    await fs.symlink('/dev/zero', path.join(root, 'AGENTS.md'));
    const { rules, ms } = await timedLoad(loader());
    assert.deepEqual(rules, []);
    assert.ok(ms < FAST_MS, `took ${ms} ms`);
  });

  it('refuses a FIFO as .headroom/rules.md before opening it (nothing writes to it, so opening would block)', async function () {
    if (process.platform === 'win32') this.skip();
    await fs.mkdir(path.join(root, '.headroom'));
    execFileSync('mkfifo', [path.join(root, '.headroom/rules.md')]);
    await fs.writeFile(path.join(root, 'AGENTS.md'), 'Use tabs.\n');
    const { rules, ms } = await timedLoad(loader());
    assert.deepEqual(
      rules.map((r) => r.path),
      ['AGENTS.md'],
      'the other rules files still load',
    );
    assert.match(problems.join('\n'), /\.headroom\/rules\.md is not a regular file/);
    assert.ok(ms < FAST_MS, `took ${ms} ms`);
    // And the process's file reads still work afterwards (no blocked thread pool).
    assert.equal(await fs.readFile(path.join(root, 'AGENTS.md'), 'utf8'), 'Use tabs.\n');
  });

  it('reads only the first 32 KB of a 300 MB file and reports its real size', async () => {
    const big = path.join(root, 'AGENTS.md');
    await fs.writeFile(big, 'Rule one.\n');
    await fs.truncate(big, 300 * 1024 * 1024); // sparse: no 300 MB written
    const { rules, ms } = await timedLoad(loader());
    assert.equal(rules.length, 1);
    assert.ok(Buffer.byteLength(rules[0].text) <= MAX_RULES_BYTES, 'bounded read');
    assert.equal(rules[0].size, 300 * 1024 * 1024);
    assert.ok(ms < FAST_MS, `took ${ms} ms`);
    const section = buildSystemSections({ rules })[1].text;
    assert.match(section, /AGENTS\.md cut at 32768 of 314572800 bytes/);
  });

  it('accepts a link to a rules file inside the workspace', async () => {
    await fs.mkdir(path.join(root, 'docs'));
    await fs.writeFile(path.join(root, 'docs/agents.md'), 'Prefer small commits.\n');
    await fs.symlink(path.join(root, 'docs/agents.md'), path.join(root, 'AGENTS.md'));
    const { rules } = await timedLoad(loader());
    assert.deepEqual(rules, [{ path: 'AGENTS.md', text: 'Prefer small commits.\n', size: 22 }]);
    assert.deepEqual(problems, []);
  });

  it('does not re-read an unchanged file every turn, and re-reads it when it changes', async () => {
    const file = path.join(root, 'AGENTS.md');
    await fs.writeFile(file, 'Version one.\n');
    const l = loader();
    assert.equal((await l.load())[0].text, 'Version one.\n');
    assert.equal((await l.load())[0].text, 'Version one.\n');
    assert.equal(l.reads, 1, 'second turn served from the cache');
    await fs.writeFile(file, 'Version two, longer.\n');
    assert.equal((await l.load())[0].text, 'Version two, longer.\n');
    assert.equal(l.reads, 2);
    await fs.rm(file);
    assert.deepEqual(await l.load(), []);
  });

  it('reports a refused file once, not every turn', async () => {
    await fs.symlink(path.join(home, '.ssh/id_rsa'), path.join(root, 'AGENTS.md'));
    const l = loader();
    await l.load();
    await l.load();
    assert.equal(problems.length, 1);
  });
});
