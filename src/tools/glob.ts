/**
 * Glob matching for workspace-relative paths (forward slashes). Supports `*`, `?`, `**`, `[...]`
 * and `{a,b}`. A glob without a `/` matches the file name at any depth (as ripgrep's `--glob`
 * does), so `*.ts` finds every TypeScript file.
 */

/** Translates a glob body to a regular-expression source (no anchors). */
export function globToRegexSource(glob: string): string {
  let out = '';
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        i++;
        if (glob[i + 1] === '/' && atStart) {
          out += '(?:.*/)?';
          i++;
        } else {
          out += '.*';
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
      } else {
        let body = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (body[0] === '!') body = '^' + body.slice(1);
        out += `[${body}]`;
        i = end;
      }
    } else if (c === '{') {
      braceDepth++;
      out += '(?:';
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
    } else if (c === ',' && braceDepth > 0) {
      out += '|';
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob[++i]);
    } else {
      out += escapeRegex(c);
    }
  }
  return out;
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A predicate for workspace-relative paths. An empty glob, `*` or `**` matches everything; `dir/` all below dir. */
export function globMatcher(glob: string): (relPath: string) => boolean {
  let g = glob.trim().replace(/^\.\//, '');
  if (g.endsWith('/')) g += '**'; // "src/" means everything below src
  if (g === '' || g === '**' || g === '**/*') return () => true;
  if (!g.includes('/')) {
    const re = new RegExp(`^${globToRegexSource(g)}$`);
    return (p) => re.test(p.slice(p.lastIndexOf('/') + 1));
  }
  const re = new RegExp(`^${globToRegexSource(g.replace(/^\//, ''))}$`);
  return (p) => re.test(p);
}
