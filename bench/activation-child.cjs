// Child process of bench/activation.bench.mjs: times require + activate of the production bundle
// with a stand-in `vscode` module (any property is a function returning a disposable stand-in), so the
// figure is Headroom's own cost. Prints the milliseconds.
const Module = require('module');
const path = require('path');
const { performance } = require('perf_hooks');

function stub(name = 'vscode') {
  const fn = function () {
    return stub(name + '()');
  };
  return new Proxy(fn, {
    get(_t, prop) {
      if (prop === 'dispose') return () => {};
      if (prop === 'then') return undefined;
      if (prop === Symbol.toPrimitive) return () => name;
      if (prop === 'fsPath' || prop === 'path') return '/tmp/headroom-bench';
      return stub(`${name}.${String(prop)}`);
    },
    apply() {
      return stub(name + '()');
    },
    construct() {
      return stub('new ' + name);
    },
    // Host code assigns properties (e.g. a status bar item's `name`): accept and forget them.
    set() {
      return true;
    },
    defineProperty() {
      return true;
    },
  });
}

// esbuild's interop copies the module's own keys, so the top level is a plain object of namespaces.
const NAMESPACES = [
  'window',
  'commands',
  'workspace',
  'env',
  'extensions',
  'languages',
  'l10n',
  'lm',
  'Uri',
  'EventEmitter',
  'Disposable',
  'StatusBarAlignment',
  'ThemeColor',
  'ThemeIcon',
  'ViewColumn',
  'ProgressLocation',
  'ConfigurationTarget',
  'CancellationTokenSource',
  'LanguageModelTextPart',
  'LanguageModelToolResult',
  'QuickPickItemKind',
  'TreeItem',
  'TreeItemCollapsibleState',
  'MarkdownString',
  'Range',
  'Position',
  'Selection',
  'WorkspaceEdit',
  'LogLevel',
];
const vscodeStub = Object.fromEntries(NAMESPACES.map((n) => [n, stub(n)]));
const original = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'vscode') return vscodeStub;
  return original.call(this, request, ...rest);
};

const bundle = path.resolve(process.argv[2]);
const context = {
  subscriptions: [],
  extensionUri: stub('extensionUri'),
  extension: { packageJSON: { version: '0.0.0' } },
  storageUri: { fsPath: '/tmp/headroom-bench' },
  globalStorageUri: { fsPath: '/tmp/headroom-bench-global' },
  secrets: stub('secrets'),
  workspaceState: stub('workspaceState'),
  globalState: stub('globalState'),
};
const t0 = performance.now();
const ext = require(bundle);
ext.activate(context);
const ms = performance.now() - t0;
// The deferred half: what the first view-open or command pays on top (require host.js + createHost).
const t1 = performance.now();
require(path.join(path.dirname(bundle), 'host.js')).createHost(context, stub('log'));
const hostMs = performance.now() - t1;
process.stdout.write(JSON.stringify({ ms, hostMs }));
