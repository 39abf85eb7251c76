import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { listFilesTool } from '../../src/tools/builtin/list-files';
import { searchTextTool } from '../../src/tools/builtin/search-text';
import { GitignoreMatcher } from '../../src/tools/gitignore';
import { globMatcher } from '../../src/tools/glob';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { findRipgrep } from '../../src/tools/ripgrep-path';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

const FILES = {
  '.gitignore': '# build output\ndist/\n*.log\n!keep.log\n/root-only.txt\nnode_modules\n',
  'src/main.ts': 'import { helper } from "./util";\nhelper();\n',
  'src/util.ts': 'export function helper() {\n  return 42; // TODO tidy\n}\n',
  'src/.gitignore': 'generated.ts\n',
  'src/generated.ts': 'export const HELPER = 1;\n',
  'src/deep/x.md': '# Helper notes\n',
  'dist/out.js': 'helper();\n',
  'app.log': 'helper log\n',
  'keep.log': 'kept helper\n',
  'root-only.txt': 'helper\n',
  'docs/root-only.txt': 'helper in docs\n',
  'node_modules/pkg/index.js': 'helper\n',
  'image.bin': 'helper\u0000binary',
};

// ripgrep ships with VS Code; the cached code-server carries one (CI keeps its cache in HEADROOM_VSCODE_CACHE).
const RG = path.resolve(
  process.env.HEADROOM_VSCODE_CACHE ?? '.vscode-test',
  'node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep-universal/bin/linux-x64/rg',
);

describe('tools: list_files and search_text', () => {
  let root: string;
  before(async () => {
    root = await tempWorkspace(FILES);
  });
  after(() => removeDir(root));

  it('list_files respects .gitignore at every level, with negation and anchors', async () => {
    const r = await listFilesTool.invoke(call('list_files', {}), makeContext(root));
    const files = resultText(r).split('\n').slice(1).sort();
    assert.deepEqual(files, [
      '.gitignore',
      'docs/root-only.txt',
      'image.bin',
      'keep.log',
      'src/.gitignore',
      'src/deep/x.md',
      'src/main.ts',
      'src/util.ts',
    ]);
  });

  it('list_files filters by glob, lists ignored files on request and reports truncation', async () => {
    const ctx = makeContext(root);
    assert.equal(
      resultText(await listFilesTool.invoke(call('list_files', { glob: 'src/*.ts' }), ctx)),
      '2 files matching "src/*.ts":\nsrc/main.ts\nsrc/util.ts',
    );
    const all = resultText(await listFilesTool.invoke(call('list_files', { glob: '*.log', include_ignored: true }), ctx));
    assert.equal(all, '2 files matching "*.log":\napp.log\nkeep.log');
    const few = resultText(await listFilesTool.invoke(call('list_files', { limit: 2 }), ctx));
    assert.match(few, /^First 2 files matching "\*\*" \(more exist/);
    assert.equal(resultText(await listFilesTool.invoke(call('list_files', { glob: '*.py' }), ctx)), 'No files match "*.py".');
  });

  it('glob and gitignore matchers follow the usual rules', () => {
    assert.ok(globMatcher('*.ts')('a/b/c.ts'));
    assert.ok(globMatcher('src/**/*.ts')('src/a.ts'));
    assert.ok(globMatcher('src/**/*.ts')('src/a/b/c.ts'));
    assert.ok(!globMatcher('src/*.ts')('src/a/b.ts'));
    assert.ok(globMatcher('*.{ts,md}')('x/y.md'));
    assert.ok(globMatcher('src/')('src/deep/x.md'));
    assert.ok(!globMatcher('src/')('docs/x.md'));
    assert.ok(globMatcher('file?.[ch]')('file1.c'));
    const g = new GitignoreMatcher();
    g.add('', 'build/\n/top.txt\na/**/z\n');
    assert.ok(g.ignores('build', true));
    assert.ok(!g.ignores('build', false));
    assert.ok(g.ignores('top.txt', false));
    assert.ok(!g.ignores('x/top.txt', false));
    assert.ok(g.ignores('a/b/c/z', false));
  });

  it('search_text (pure-JS fallback) finds matches, honours .gitignore, glob, case and skips binaries', async () => {
    const ctx = makeContext(root);
    const r = await searchTextTool.invoke(call('search_text', { pattern: 'helper' }), ctx);
    const lines = resultText(r).split('\n');
    assert.match(lines[0], /^6 matches for \/helper\/:$/);
    assert.deepEqual(lines.slice(1).sort(), [
      'docs/root-only.txt:1: helper in docs',
      'keep.log:1: kept helper',
      'src/deep/x.md:1: # Helper notes',
      'src/main.ts:1: import { helper } from "./util";',
      'src/main.ts:2: helper();',
      'src/util.ts:1: export function helper() {',
    ]);
    const scoped = resultText(
      await searchTextTool.invoke(call('search_text', { pattern: 'Helper', glob: '*.md', case_sensitive: true }), ctx),
    );
    assert.equal(scoped, '1 match for /Helper/ in "*.md":\nsrc/deep/x.md:1: # Helper notes');
    const regex = resultText(await searchTextTool.invoke(call('search_text', { pattern: 'return \\d+' }), ctx));
    assert.match(regex, /src\/util\.ts:2: {3}return 42; \/\/ TODO tidy/);
    const literal = resultText(await searchTextTool.invoke(call('search_text', { pattern: 'helper(' }), ctx));
    assert.match(literal, /src\/main\.ts:2: helper\(\);/, 'an invalid regex is searched literally');
    const capped = resultText(await searchTextTool.invoke(call('search_text', { pattern: 'helper', max_results: 2 }), ctx));
    assert.match(capped, /^First 2 matches/);
    assert.equal(resultText(await searchTextTool.invoke(call('search_text', { pattern: 'zebra' }), ctx)), 'No matches for /zebra/.');
  });

  it('falls back cleanly when the ripgrep path does not exist', async () => {
    const ws = createNodeWorkspace(root, { rgPath: path.join(root, 'no-such-rg') });
    const { matches } = await ws.searchText('kept', { maxResults: 10 });
    assert.deepEqual(matches, [{ path: 'keep.log', line: 1, text: 'kept helper' }]);
  });

  it('finds the ripgrep VS Code ships under its app root', () => {
    const seen: string[] = [];
    const found = findRipgrep(
      '/app',
      (p) => (seen.push(p), p.endsWith(path.join('ripgrep-universal', 'bin', 'linux-x64', 'rg'))),
      'linux',
      'x64',
    );
    assert.equal(found, path.join('/app', 'node_modules', '@vscode', 'ripgrep-universal', 'bin', 'linux-x64', 'rg'));
    assert.equal(seen[0], path.join('/app', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'));
    assert.equal(
      findRipgrep('/app', () => false),
      undefined,
    );
    assert.match(findRipgrep('/app', () => true, 'win32', 'x64') ?? '', /rg\.exe$/);
  });

  (existsSync(RG) ? it : it.skip)('ripgrep gives the same matches as the fallback', async () => {
    const rg = createNodeWorkspace(root, { rgPath: RG });
    const js = createNodeWorkspace(root);
    for (const [pattern, glob] of [
      ['helper', undefined],
      ['Helper', '*.md'],
      ['return \\d+', undefined],
    ] as const) {
      const a = await rg.searchText(pattern, { glob, maxResults: 100 });
      const b = await js.searchText(pattern, { glob, maxResults: 100 });
      const key = (m: { path: string; line: number }) => `${m.path}:${m.line}`;
      assert.deepEqual(a.matches.map(key).sort(), b.matches.map(key).sort(), pattern);
    }
    const capped = await rg.searchText('helper', { maxResults: 2 });
    assert.equal(capped.matches.length, 2);
    assert.equal(capped.truncated, true);
  });
});
