/**
 * .gitignore rules across a folder tree, by the `ignore` library (git's own semantics for one file).
 * Rules from a folder's .gitignore apply below that folder, and a deeper file's rules are checked
 * after its parents' so they can re-include (`!`) or exclude again: the last decisive rule wins.
 */
import ignore, { type Ignore } from 'ignore';

export class GitignoreMatcher {
  private readonly levels: Array<{ base: string; rules: Ignore }> = [];

  /** Adds the rules of the .gitignore found in folder `baseDir` ('' for the root). */
  add(baseDir: string, content: string): void {
    this.levels.push({ base: baseDir, rules: ignore().add(content) });
    // Parents before children, whatever order the folders were read in.
    this.levels.sort((a, b) => a.base.split('/').length - b.base.split('/').length);
  }

  /** Whether the workspace-relative `relPath` is ignored. */
  ignores(relPath: string, isDir: boolean): boolean {
    let ignored = false;
    for (const { base, rules } of this.levels) {
      let sub: string;
      if (base === '') sub = relPath;
      else if (relPath.startsWith(base + '/')) sub = relPath.slice(base.length + 1);
      else continue;
      const r = rules.test(isDir ? `${sub}/` : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }
}
