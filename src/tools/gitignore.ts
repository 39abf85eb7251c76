/**
 * A simple .gitignore matcher: comments, blank lines, `!` negation, trailing `/` (directories
 * only), leading or inner `/` (anchored to the .gitignore's folder), `*`, `?`, `**`, `[...]`.
 * Rules from a folder's .gitignore apply below that folder; the last matching rule wins.
 */
import { globToRegexSource } from './glob';

interface Rule {
  base: string;
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

export class GitignoreMatcher {
  private readonly rules: Rule[] = [];

  /** Adds the rules of the .gitignore found in folder `baseDir` ('' for the root). */
  add(baseDir: string, content: string): void {
    for (const raw of content.split(/\r?\n/)) {
      let line = raw.replace(/(?<!\\)\s+$/, '');
      if (!line || line.startsWith('#')) continue;
      let negate = false;
      if (line.startsWith('!')) {
        negate = true;
        line = line.slice(1);
      } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
        line = line.slice(1);
      }
      let dirOnly = false;
      if (line.endsWith('/')) {
        dirOnly = true;
        line = line.slice(0, -1);
      }
      if (!line) continue;
      const anchored = line.includes('/');
      line = line.replace(/^\//, '');
      const source = globToRegexSource(line);
      const regex = new RegExp(anchored ? `^${source}$` : `(?:^|/)${source}$`);
      this.rules.push({ base: baseDir, regex, negate, dirOnly });
    }
  }

  /** Whether the workspace-relative `relPath` is ignored. */
  ignores(relPath: string, isDir: boolean): boolean {
    let ignored = false;
    for (const rule of this.rules) {
      if (rule.dirOnly && !isDir) continue;
      let sub: string;
      if (rule.base === '') sub = relPath;
      else if (relPath.startsWith(rule.base + '/')) sub = relPath.slice(rule.base.length + 1);
      else continue;
      if (rule.regex.test(sub)) ignored = !rule.negate;
    }
    return ignored;
  }
}
