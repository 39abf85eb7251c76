import assert from 'node:assert/strict';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checklistIn, errorLinesIn } from '../../src/agent/ledger';
import { changedFiles, fileVersions, versionsDigest } from '../../src/tools/file-versions';
import { removeDir, tempWorkspace } from '../fixtures/tools/tool-context';

describe('work ledger: errors and checklists in words', () => {
  it('takes lines shaped like tool output, not prose that mentions an error', () => {
    const text = [
      'I looked into the error: it comes from the parser.',
      'There were no errors in the last run.',
      '> src/a.ts(3,7): error TS2345: Argument of type "x" is not assignable',
      '`AssertionError [ERR_ASSERTION]: Expected values to be strictly equal`',
      'npm ERR! code ELIFECYCLE',
      '0 failing',
      'java.lang.NullPointerException: name is null',
    ].join('\n');
    assert.deepEqual(errorLinesIn(text), [
      'src/a.ts(3,7): error TS2345: Argument of type "x" is not assignable',
      'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal',
      'npm ERR! code ELIFECYCLE',
    ]);
    assert.deepEqual(errorLinesIn("2 failing\nthread 'main' panicked at src/main.rs:4:5"), [
      '2 failing',
      "thread 'main' panicked at src/main.rs:4:5",
    ]);
    assert.equal(errorLinesIn(`Error: ${'x'.repeat(500)}`)[0].length, 200, 'kept short');
  });

  it('reads a checklist of two steps or more', () => {
    assert.deepEqual(checklistIn('- [x] **port** the lexer\n* [ ] wire the parser\n1. [~] run tests'), [
      { text: 'port the lexer', status: 'done' },
      { text: 'wire the parser', status: 'open' },
      { text: 'run tests', status: 'in_progress' },
    ]);
    assert.deepEqual(checklistIn('- [x] one lonely step'), []);
  });
});

describe('file versions: what changed in the workspace', () => {
  let root: string;
  beforeEach(async () => (root = await tempWorkspace({ 'a.txt': 'a', 'src/b.ts': 'b', '.gitignore': 'dist/\n', 'dist/out.js': 'x' })));
  afterEach(async () => removeDir(root));

  it('says which files were created, modified and deleted, and digests the same state the same way', async () => {
    const before = await fileVersions(root);
    assert.ok(before.complete);
    assert.ok(!before.files.has('dist/out.js'), 'ignored files are not walked');
    assert.equal(versionsDigest(await fileVersions(root)), versionsDigest(before), 'nothing changed: the same digest');
    await writeFile(join(root, 'c.txt'), 'c');
    await writeFile(join(root, 'a.txt'), 'a2');
    await rm(join(root, 'src/b.ts'));
    await writeFile(join(root, 'dist/out.js'), 'changed'); // ignored: not a change
    const after = await fileVersions(root);
    assert.deepEqual(changedFiles(before, after), [
      { path: 'a.txt', change: 'modified' },
      { path: 'c.txt', change: 'created' },
      { path: 'src/b.ts', change: 'deleted' },
    ]);
    assert.notEqual(versionsDigest(after), versionsDigest(before));
  });

  it('a touched file (same size, new time) and a git commit count as changes', async () => {
    const before = versionsDigest(await fileVersions(root));
    await utimes(join(root, 'a.txt'), new Date(), new Date(Date.now() + 5_000));
    const touched = versionsDigest(await fileVersions(root));
    assert.notEqual(touched, before);
    await mkdir(join(root, '.git'), { recursive: true });
    await writeFile(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    assert.notEqual(versionsDigest(await fileVersions(root)), touched, 'git state is part of the digest');
  });

  it('a walk past its limit claims nothing: no digest, no changes', async () => {
    const partial = await fileVersions(root, { limit: 1 });
    assert.equal(partial.complete, false);
    assert.equal(versionsDigest(partial), undefined);
    assert.deepEqual(changedFiles(partial, await fileVersions(root)), []);
  });
});
