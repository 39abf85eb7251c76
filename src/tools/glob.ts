/**
 * Glob matching for workspace-relative paths (forward slashes), by picomatch. A glob without a `/`
 * matches the file name at any depth (as ripgrep's `--glob` does), so `*.ts` finds every TypeScript
 * file; `dir/` means everything below dir. Globs come from the model: match them inside the pattern
 * worker (`pattern-runner.ts`), where a pathological one is stopped by a time bound.
 */
import picomatch from 'picomatch';

/** A predicate for workspace-relative paths. An empty glob, `*` or `**` matches everything. */
export function globMatcher(glob: string): (relPath: string) => boolean {
  let g = glob.trim().replace(/^\.\//, '').replace(/^\/+/, '');
  if (g.endsWith('/')) g += '**';
  if (g === '' || g === '**' || g === '**/*') return () => true;
  return picomatch(g, { dot: true, basename: !g.includes('/') });
}
