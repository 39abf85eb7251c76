// figures: count_worst_undercount count_claude_worst_undercount
/**
 * Count bench: how far below the exact o200k count the estimates Headroom shows and gates
 * on can fall, per content class of real public text (4 KiB slices of `test/fixtures/corpus`, plus any
 * `<class>-*.txt` files in `$HEADROOM_CORPUS` when set — e.g. a larger local corpus). Two estimates are
 * measured: the safe estimate used before the token worker answers (`estimateText`), and the bounded
 * counter's sampled count of whole files (sampling forced with a small work budget). Prints:
 *   count_worst_undercount          largest relative under-count over all slices and files (≤ 0.03)
 *   count_undercount_<class>        the same per class, with the mean over-count and bytes/4's miss
 *   count_claude_worst_undercount   largest relative under-count of the uncalibrated Claude estimate
 *                                   (from the exact o200k count or the safe estimate) versus the public
 *                                   legacy Claude tokenizer, per content class in extra fields (≤ 0.03)
 */
import { readFileSync } from 'node:fs';
import { createBoundedCounter } from '../src/context/bounded-counter';
import { loadEncoding } from '../src/context/encoder';
import { estimateText } from '../src/context/message-tokens';
import { CLAUDE_CLASS_FACTORS } from '../src/context/models';
import { claudeUndercountByClass } from '../test/fixtures/context/claude-undercount';
import { corpusSlices } from '../test/fixtures/context/corpus-slices';
import { r3, report } from './util';

interface ClassStats {
  slices: number;
  worst: number;
  overSum: number;
  worstBytes: number;
  sampledWorst: number;
}

async function main(): Promise<void> {
  const { counter, encoder } = await loadEncoding('o200k_base');
  const ranks = (await import('js-tiktoken/ranks/o200k_base')).default;
  const sampling = createBoundedCounter(encoder, ranks.pat_str, { budgetUnits: 20_000 });
  const stats = new Map<string, ClassStats>();
  const slices = corpusSlices({ extraDir: process.env.HEADROOM_CORPUS });
  const files = new Map<string, string>();
  for (const s of slices) {
    const exact = counter.exact(s.text);
    if (exact === 0) continue;
    const est = estimateText(s.text).bpe;
    const st = stats.get(s.label) ?? { slices: 0, worst: 0, overSum: 0, worstBytes: 0, sampledWorst: 0 };
    st.slices++;
    st.worst = Math.max(st.worst, (exact - est) / exact);
    st.overSum += est / exact - 1;
    st.worstBytes = Math.max(st.worstBytes, (exact - Math.ceil(Buffer.byteLength(s.text) / 4)) / exact);
    stats.set(s.label, st);
    if (!s.file.startsWith('random')) files.set(s.file, s.label);
  }
  // Whole files through the sampling path (only the checked-in sample: its files are < 100 KB).
  for (const dir of ['test/fixtures/corpus']) {
    for (const [file, label] of files) {
      let text: string;
      try {
        text = readFileSync(`${dir}/${file}`, 'utf8');
      } catch {
        continue;
      }
      const c = sampling.count(text);
      if (!c.sampled) continue;
      const exact = counter.exact(text);
      const st = stats.get(label)!;
      st.sampledWorst = Math.max(st.sampledWorst, (exact - c.bpe) / exact);
    }
  }
  let worst = 0;
  for (const st of stats.values()) worst = Math.max(worst, st.worst, st.sampledWorst);
  report({
    bench: 'count_worst_undercount',
    value: r3(Math.max(0, worst)),
    unit: 'ratio',
    target: 0.03,
    better: 'lower',
    slices: slices.length,
    classes: [...stats.keys()],
  });
  for (const [label, st] of stats) {
    report({
      bench: `count_undercount_${label}`,
      value: r3(Math.max(0, st.worst, st.sampledWorst)),
      unit: 'ratio',
      target: 0.03,
      better: 'lower',
      slices: st.slices,
      meanOvercount: r3(st.overSum / st.slices),
      sampledWorst: r3(Math.max(0, st.sampledWorst)),
      bytesOver4WorstMiss: r3(Math.max(0, st.worstBytes)),
    });
  }
  await reportClaude();
}

/** The uncalibrated Claude estimate against the legacy Claude tokenizer, per content class. */
async function reportClaude(): Promise<void> {
  const byClass = await claudeUndercountByClass(process.env.HEADROOM_CORPUS);
  const perClass: Record<string, unknown> = {};
  let worst = 0;
  for (const [cls, st] of byClass) {
    const under = Math.max(st.worstUndercountExact, st.worstUndercountSafe);
    worst = Math.max(worst, under);
    perClass[cls] = {
      slices: st.slices,
      meanRatio: r3(st.meanRatio),
      worstRatio: r3(st.worstRatio),
      factor: CLAUDE_CLASS_FACTORS[cls],
      undercount: r3(under),
    };
  }
  report({ bench: 'count_claude_worst_undercount', value: r3(worst), unit: 'ratio', target: 0.03, better: 'lower', ...perClass });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`count bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
