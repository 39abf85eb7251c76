// The size and layering limits of ../../ARCHITECTURE.md, checked on the source itself: no file in `src/`
// or `webview-ui/` over 350 lines, no function (declaration, method, accessor, constructor, arrow or
// function expression, nested ones counted on their own) over 120 lines, `vscode` imported only by
// the layers that may touch VS Code, no import to a higher floor (the floors are the rows of
// ARCHITECTURE.md's layer table) and no import circle. Parsed with the TypeScript compiler API.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

const MAX_FILE_LINES = 350;
const MAX_FUNCTION_LINES = 120;

/** Files allowed past the limits for now, each with the reason; the list shrinks, it never grows. */
const EXCEPTIONS: Readonly<Record<string, string>> = {};

/** Where `vscode` may be imported: everything else runs under plain mocha. */
const VSCODE_LAYERS = ['src/panel/', 'src/commands/', 'src/config/', 'src/platform/', 'src/extension.ts'];

const root = join(__dirname, '..', '..');

/** Every `.ts` file under `dir`, as a root-relative path with forward slashes. */
function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Lines as `wc -l` counts them (a final newline ends the last line, it does not start one). */
function fileLines(file: ts.SourceFile): number {
  return file.getLineStarts().length - (file.text.endsWith('\n') ? 1 : 0);
}

function lineOf(file: ts.SourceFile, pos: number): number {
  return file.getLineAndCharacterOfPosition(pos).line + 1;
}

/** A function-like node's name for the report: its own name, or the name it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText();
  }
  return '(anonymous)';
}

/** Every function-like node with a body, with its length in lines (first to last line inclusive). */
function functionSizes(file: ts.SourceFile): Array<{ name: string; line: number; lines: number }> {
  const found: Array<{ name: string; line: number; lines: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const line = lineOf(file, node.getStart(file));
      found.push({ name: functionName(node), line, lines: lineOf(file, node.getEnd()) - line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Module specifiers the file imports or re-exports, statically or through `import()` / `require()`. */
function importedModules(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const ref = node.moduleReference.expression;
      if (ts.isStringLiteral(ref)) found.push(ref.text);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isImport || isRequire) found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The floors of ARCHITECTURE.md's layer table, lowest first: each row's backticked paths (`src/app/`, `src/extension.ts`). */
function floorsFromArchitecture(): string[][] {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('| layer | what lives there |');
  assert.ok(start >= 0, 'ARCHITECTURE.md has no layer table');
  const rows = text.slice(start).split('\n').slice(2);
  const floors: string[][] = [];
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    const firstCell = row.split('|')[1];
    floors.push([...firstCell.matchAll(/`([^`]+)`/g)].map((m) => m[1]));
  }
  return floors;
}

/** The floor of a file: the row whose path is the file or a folder holding it (undefined: in no row). */
function floorOf(floors: readonly string[][], path: string): number | undefined {
  const i = floors.findIndex((paths) => paths.some((p) => path === p || (p.endsWith('/') && path.startsWith(p))));
  return i < 0 ? undefined : i;
}

/** The `.ts` file a relative module specifier of `from` names (`./x` → `x.ts` or `x/index.ts`); undefined for packages. */
function resolveImport(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = posix.normalize(posix.join(dirname(from), specifier));
  return [base, `${base}.ts`, `${base}/index.ts`].find((p) => known.has(p));
}

/** Every import circle (strongly connected component of more than one file, or a file importing itself), each sorted. */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so a long chain of imports cannot overflow the stack.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) circles.push(component.sort());
    }
  }
  return circles;
}

/**
 * Assignments in `file` to a property of something the code does not own: a parameter or a
 * module-level binding (`core.store = …`). Its own state (`this.x = …`) and objects it made itself
 * (a local `const`) are fine.
 */
function foreignAssignments(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const isAssignment = (k: ts.SyntaxKind) => k >= ts.SyntaxKind.FirstAssignment && k <= ts.SyntaxKind.LastAssignment;
  const declaredLocally = (name: string, from: ts.Node): 'local' | 'parameter' | 'outside' => {
    for (let n: ts.Node | undefined = from; n && !ts.isSourceFile(n); n = n.parent) {
      if (!ts.isFunctionLike(n)) continue;
      if (n.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === name)) return 'parameter';
      let local = false;
      const scan = (c: ts.Node): void => {
        if (ts.isVariableDeclaration(c) && ts.isIdentifier(c.name) && c.name.text === name) local = true;
        if (!local) ts.forEachChild(c, scan);
      };
      if ('body' in n && n.body) scan(n.body);
      if (local) return 'local';
    }
    return 'outside';
  };
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) {
      let target: ts.Expression = node.left;
      if (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) {
        while (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) target = target.expression;
        if (ts.isIdentifier(target) && declaredLocally(target.text, node) !== 'local')
          found.push(`${file.fileName}:${lineOf(file, node.getStart(file))} ${node.left.getText(file)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('architecture limits', () => {
  const paths = [...tsFiles('src'), ...tsFiles('webview-ui')];
  const files = paths.map((path) => ({ path, source: parse(path) }));

  it('finds the source it checks', () => {
    assert.ok(paths.includes('src/extension.ts'), 'src/extension.ts');
    assert.ok(paths.includes('webview-ui/main.ts'), 'webview-ui/main.ts');
    assert.ok(paths.length > 100, `only ${paths.length} files found`);
  });

  it(`keeps every file at ${MAX_FILE_LINES} lines or fewer`, () => {
    const offenders = files
      .filter(({ path }) => !(path in EXCEPTIONS))
      .map(({ path, source }) => ({ path, lines: fileLines(source) }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ path, lines }) => `${path}: ${lines} lines`);
    assert.deepEqual(offenders, [], `files over ${MAX_FILE_LINES} lines:\n${offenders.join('\n')}`);
  });

  it(`keeps every function at ${MAX_FUNCTION_LINES} lines or fewer`, () => {
    const offenders = files
      .filter(({ path }) => !(path in EXCEPTIONS))
      .flatMap(({ path, source }) =>
        functionSizes(source)
          .filter(({ lines }) => lines > MAX_FUNCTION_LINES)
          .map(({ name, line, lines }) => `${path}:${line} ${name}: ${lines} lines`),
      );
    assert.deepEqual(offenders, [], `functions over ${MAX_FUNCTION_LINES} lines:\n${offenders.join('\n')}`);
  });

  it('lists only exceptions that exist and still need to be one', () => {
    for (const [path, reason] of Object.entries(EXCEPTIONS)) {
      assert.ok(reason.length > 0, `${path} needs a reason`);
      const file = files.find((f) => f.path === path);
      assert.ok(file, `${path} no longer exists: remove it from EXCEPTIONS`);
      const oversized =
        fileLines(file.source) > MAX_FILE_LINES || functionSizes(file.source).some(({ lines }) => lines > MAX_FUNCTION_LINES);
      assert.ok(oversized, `${path} is within the limits now: remove it from EXCEPTIONS`);
    }
  });

  /** Each file's imports of other files of `src/` and `webview-ui/` (type-only, dynamic and re-exports included). */
  const known = new Set(paths);
  const graph = new Map(
    files.map(({ path, source }) => [
      path,
      [...new Set(importedModules(source).map((m) => resolveImport(path, m, known)))].filter((p): p is string => p !== undefined),
    ]),
  );

  it('imports nothing from a higher floor of the layer table', () => {
    const floors = floorsFromArchitecture();
    assert.ok(floors.length >= 10, `only ${floors.length} floors read from ARCHITECTURE.md`);
    const unplaced = paths.filter((p) => floorOf(floors, p) === undefined);
    assert.deepEqual(unplaced, [], `files in no row of ARCHITECTURE.md's layer table:\n${unplaced.join('\n')}`);
    const offenders = [...graph].flatMap(([from, targets]) =>
      targets.filter((to) => floorOf(floors, to)! > floorOf(floors, from)!).map((to) => `${from} → ${to}`),
    );
    assert.deepEqual(offenders, [], `imports to a higher floor:\n${offenders.join('\n')}`);
  });

  it('keeps the side panel to src/protocol and src/common, and nothing imports the side panel', () => {
    const offenders = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) =>
          from.startsWith('webview-ui/')
            ? !to.startsWith('webview-ui/') && !to.startsWith('src/protocol/') && !to.startsWith('src/common/')
            : to.startsWith('webview-ui/'),
        )
        .map((to) => `${from} → ${to}`),
    );
    assert.deepEqual(offenders, [], `imports across the webview boundary:\n${offenders.join('\n')}`);
  });

  it('has no import circle', () => {
    const circles = importCircles(graph).map((c) => c.join(' ↔ '));
    assert.deepEqual(circles, [], `import circles:\n${circles.join('\n')}`);
  });

  it('has no index file that nothing imports (a folder’s surface is what its users import)', () => {
    const imported = new Set([...graph.values()].flat());
    const unused = paths.filter((p) => p.startsWith('src/') && p.endsWith('/index.ts') && !imported.has(p));
    assert.deepEqual(unused, [], `index files nobody imports:\n${unused.join('\n')}`);
  });

  it('changes an owner’s state in app/ only through its own verbs: no assignment to another’s property', () => {
    const offenders = files.filter(({ path }) => path.startsWith('src/app/')).flatMap(({ source }) => foreignAssignments(source));
    assert.deepEqual(offenders, [], `assignments to state another owner holds:\n${offenders.join('\n')}`);
  });

  it('finds a circle and an upward import when there is one (the checks can fail)', () => {
    const planted = new Map([
      ['src/app/a.ts', ['src/app/b.ts']],
      ['src/app/b.ts', ['src/app/c.ts']],
      ['src/app/c.ts', ['src/app/a.ts', 'src/common/d.ts']],
      ['src/common/d.ts', ['src/common/d.ts']],
      ['src/common/e.ts', []],
    ]);
    assert.deepEqual(importCircles(planted).sort(), [['src/app/a.ts', 'src/app/b.ts', 'src/app/c.ts'], ['src/common/d.ts']]);
    const floors = floorsFromArchitecture();
    assert.ok(floorOf(floors, 'src/panel/x.ts')! > floorOf(floors, 'src/app/x.ts')!, 'panel sits above app');
    assert.ok(floorOf(floors, 'src/common/x.ts')! < floorOf(floors, 'src/protocol/x.ts')!, 'common is the lowest floor');
  });

  it('imports vscode only from the layers that may touch VS Code', () => {
    const offenders = files
      .filter(({ path }) => !VSCODE_LAYERS.some((layer) => path === layer || (layer.endsWith('/') && path.startsWith(layer))))
      .filter(({ source }) => importedModules(source).some((m) => m === 'vscode' || m.startsWith('vscode/')))
      .map(({ path }) => path);
    assert.deepEqual(offenders, [], `vscode imported outside ${VSCODE_LAYERS.join(', ')}:\n${offenders.join('\n')}`);
  });
});
