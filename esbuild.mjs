// Builds Headroom's two bundles:
//   dist/extension.js  — the extension host (node, cjs, `vscode` external), plus worker entry points
//   media/webview.js   — the side panel UI (browser, iife), with media/webview.css
// and ships sql.js's wasm next to the host bundle (dist/sql-wasm.wasm).
// Flags: --production (minify, no sourcemaps), --watch (rebuild on change).
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Entry points that exist (workers appear as their features land). */
const hostEntries = {
  extension: 'src/extension.ts',
  host: 'src/platform/host.ts',
  'token-worker': 'src/context/token-worker.ts',
  'pattern-worker': 'src/tools/pattern-worker.ts',
};

function existing(entries) {
  return Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file)));
}

const logPlugin = {
  name: 'headroom-log',
  setup(build) {
    build.onEnd((result) => {
      for (const e of result.errors) console.error(`✘ ${e.text} ${e.location ? `${e.location.file}:${e.location.line}` : ''}`);
      if (watch) console.log(`[watch] build finished (${result.errors.length} errors)`);
    });
  },
};

const host = {
  entryPoints: existing(hostEntries),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outdir: 'dist',
  // './host' is the lazily required second bundle (dist/host.js), never inlined into extension.js.
  external: ['vscode', './host'],
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  plugins: [logPlugin],
};

const webview = {
  entryPoints: { webview: 'webview-ui/main.ts' },
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  outdir: 'media',
  minify: production,
  sourcemap: production ? false : 'inline',
  logLevel: 'warning',
  plugins: [logPlugin],
};

function shipAssets() {
  mkdirSync('dist', { recursive: true });
  copyFileSync('node_modules/sql.js/dist/sql-wasm.wasm', 'dist/sql-wasm.wasm');
}

shipAssets();
if (watch) {
  const contexts = await Promise.all([esbuild.context(host), esbuild.context(webview)]);
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[watch] watching src/ and webview-ui/');
} else {
  await Promise.all([esbuild.build(host), esbuild.build(webview)]);
}
