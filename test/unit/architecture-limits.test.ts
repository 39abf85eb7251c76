// The size and layering limits of ../../ARCHITECTURE.md, checked on the source itself: no file in `src/`
// or `webview-ui/` over 400 lines, no function (declaration, method, accessor, constructor, arrow or
// function expression, nested ones counted on their own) over 120 lines, and `vscode` imported only by
// the layers that may touch VS Code. Parsed with the TypeScript compiler API, never with regexes.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

const MAX_FILE_LINES = 400;
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

  it('imports vscode only from the layers that may touch VS Code', () => {
    const offenders = files
      .filter(({ path }) => !VSCODE_LAYERS.some((layer) => path === layer || (layer.endsWith('/') && path.startsWith(layer))))
      .filter(({ source }) => importedModules(source).some((m) => m === 'vscode' || m.startsWith('vscode/')))
      .map(({ path }) => path);
    assert.deepEqual(offenders, [], `vscode imported outside ${VSCODE_LAYERS.join(', ')}:\n${offenders.join('\n')}`);
  });
});
