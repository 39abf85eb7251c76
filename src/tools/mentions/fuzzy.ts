/**
 * Fuzzy ranking for the @-mention picker: every typed character must appear in the path in order
 * (case-insensitive); matches in the file name, at word starts and in runs rank higher, shorter paths
 * break ties. Pure.
 */

/** Score of `query` against `path`, or undefined when it does not match. Higher is better. */
export function fuzzyScore(query: string, path: string): number | undefined {
  const q = query.toLowerCase();
  if (!q) return 1_000 - path.length;
  const p = path.toLowerCase();
  const nameStart = p.lastIndexOf('/') + 1;
  // A plain substring of the name beats any scattered match.
  const inName = p.indexOf(q, nameStart);
  if (inName !== -1) {
    const exact = p.slice(nameStart).replace(/\.[^.]*$/, '') === q;
    return 10_000 + (inName === nameStart ? 2_000 : 0) + (exact ? 1_000 : 0) - path.length;
  }
  const inPath = p.indexOf(q);
  if (inPath !== -1) return 5_000 - path.length;
  let score = 0;
  let at = 0;
  let run = 0;
  for (const ch of q) {
    const i = p.indexOf(ch, at);
    if (i === -1) return undefined;
    run = i === at ? run + 1 : 0;
    const wordStart = i === 0 || '/._- '.includes(p[i - 1]);
    score += 10 + run * 5 + (wordStart ? 8 : 0) + (i >= nameStart ? 4 : 0);
    at = i + 1;
  }
  return score - path.length / 10;
}

/** The `limit` best matches of `query` among `paths`, best first (stable for equal scores). */
export function fuzzyFilter<T extends { path: string }>(query: string, items: readonly T[], limit: number): T[] {
  const scored: Array<{ item: T; score: number; i: number }> = [];
  items.forEach((item, i) => {
    const score = fuzzyScore(query, item.path);
    if (score !== undefined) scored.push({ item, score, i });
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.slice(0, limit).map((s) => s.item);
}
