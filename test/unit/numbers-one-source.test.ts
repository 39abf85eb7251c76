import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ContextUsage } from '../../src/agent/events';
import { modelNumber } from '../../src/common/model-numbers';
import { buildStub } from '../../src/tools/admission';
import { breakdownMarkdown } from '../../src/commands/palette-commands';
import { statusAt, tokensUntil } from '../../src/context/compaction/context-status';
import { DEFAULT_THRESHOLDS } from '../../src/context/settings';
import { meterFromUsage, statusBarText } from '../../src/panel/meter-view';
import { formatCount, formatRelativeDate } from '../../src/protocol/format';
import { createFakeWorld, talk, type FakeWorld } from '../fixtures/app/fake-environment';

/** The rows of the markdown table: [label, value] each. */
function tableRows(md: string): Array<[string, string]> {
  const lines = md.split('\n').filter((l) => l.startsWith('| '));
  return lines.slice(1).map((l) => {
    const cells = l
      .slice(2, -2)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    assert.equal(cells.length, 2, l);
    return [cells[0], cells[1]];
  });
}

/** The meter, the status bar and Show Context Breakdown show the same figures, formatted alike. */
describe('numbers: one source for the figures shown', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({ 'AGENTS.md': `# Rules\n${'Keep names lowercase. '.repeat(40)}\n` })));
  afterEach(async () => world?.close());

  it("Show Context Breakdown has real labels and numbers and the meter's figure and percent", async () => {
    const { service } = await world.open();
    await talk(world, service, 2);
    const usage = service.turns.measure();
    const meter = meterFromUsage(usage);
    const md = breakdownMarkdown(usage);
    assert.doesNotMatch(md, /NaN|undefined|Infinity|\[object/);
    const rows = tableRows(md);
    assert.ok(rows.length >= 10, md);
    for (const [label, value] of rows) {
      assert.doesNotMatch(label, /^[\d\s.,%]*$/, `a row label is words, not a number: "${label}"`);
      assert.match(value, /\d/, `${label} has a figure`);
    }
    const labels = rows.map(([l]) => l);
    for (const l of ['System prompt', 'Rules', 'Tools', 'Messages', 'Reserved for output', 'Free', 'Thresholds', 'Window', 'Estimate'])
      assert.ok(labels.includes(l), `${l} in ${labels.join(', ')}`);
    const rules = rows.find(([l]) => l === 'Rules')![1];
    assert.doesNotMatch(rules, /^0 tokens/, 'the AGENTS.md rules are counted');
    // The same figure and percent as the meter and the status bar.
    assert.ok(md.includes(`Used **${meter.usedLabel}**`), md.split('\n')[2]);
    const bar = statusBarText(usage);
    assert.ok(meter.usedLabel.endsWith(`(${bar.percent})`), `${meter.usedLabel} vs status bar ${bar.percent}`);
    assert.ok(bar.tooltip.includes(meter.shareLabel), `${bar.tooltip} names ${meter.shareLabel}`);
    assert.ok(meter.untilCompactLabel && md.includes(meter.untilCompactLabel), 'the distance to auto-compaction');
    assert.ok(bar.tooltip.includes(meter.untilCompactLabel));
  });

  it('a usage without a breakdown still gives labelled rows', () => {
    const usage: ContextUsage = { used: 41_234, effectiveWindow: 190_000, contextWindow: 200_000, ratio: 41_234 / 190_000, status: 'ok' };
    const rows = tableRows(breakdownMarkdown(usage));
    assert.deepEqual(
      rows.map(([l]) => l),
      ['Context', 'Estimate'],
    );
    // Of the 190k this model can take, as every percent.
    assert.equal(rows[0][1], '41.2k tokens (22 %)');
    assert.equal(statusBarText(usage).percent, '22 %');
  });
});

describe('numbers: "to compact" is the threshold rule\'s own distance', () => {
  it('adding exactly the distance reaches the compact status, one token less does not', () => {
    for (const [used, limit] of [
      [0, 190_000],
      [120_345, 190_000],
      [7_000, 7_600],
      [1, 3],
      [99_999, 123_457],
    ]) {
      const until = tokensUntil(used, limit, 'compact', DEFAULT_THRESHOLDS)!;
      assert.ok(until > 0);
      assert.match(statusAt((used + until) / limit, DEFAULT_THRESHOLDS), /^(compact|block)$/, `${used}/${limit} + ${until}`);
      assert.match(statusAt((used + until - 1) / limit, DEFAULT_THRESHOLDS), /^(ok|note)$/, `${used}/${limit} + ${until} − 1`);
    }
    assert.equal(tokensUntil(185_000, 190_000, 'compact', DEFAULT_THRESHOLDS), 0, 'at or over the threshold');
    assert.equal(tokensUntil(Number.NaN, 190_000, 'compact', DEFAULT_THRESHOLDS), 180_500);
    assert.equal(tokensUntil(10, 0, 'compact', DEFAULT_THRESHOLDS), undefined);
    assert.equal(tokensUntil(10, 100, 'compact', {}), undefined);
  });
});

describe('numbers: counts and relative dates', () => {
  it('counts with the right noun and thousands with a comma', () => {
    assert.equal(formatCount(1, 'message'), '1 message');
    assert.equal(formatCount(0, 'message'), '0 messages');
    assert.equal(formatCount(12_345, 'line'), '12,345 lines');
    assert.equal(formatCount(Number.NaN, 'line'), '0 lines');
  });

  it('says when, relative to now', () => {
    const now = new Date(2026, 10, 23, 21, 30).getTime();
    const at = (d: number, h: number, m = 0) => new Date(2026, 10, d, h, m).getTime();
    assert.equal(formatRelativeDate(now - 20_000, now), 'just now');
    assert.equal(formatRelativeDate(now - 5 * 60_000, now), '5 min ago');
    assert.equal(formatRelativeDate(at(23, 19, 10), now), '2 h ago');
    assert.equal(formatRelativeDate(at(22, 23, 50), now), 'yesterday');
    assert.equal(formatRelativeDate(at(20, 9), now), '3 days ago');
    assert.equal(formatRelativeDate(at(2, 9), now), '2 Nov');
    assert.equal(formatRelativeDate(new Date(2025, 0, 5).getTime(), now), '5 Jan 2025');
    assert.equal(formatRelativeDate(Number.NaN, now), '?');
  });
});

describe('numbers: the ones the model reads have one formatter', () => {
  const SRC = join(__dirname, '..', '..', 'src');
  const HOMES = ['protocol/format.ts', 'common/model-numbers.ts'];

  it('writes them whole and exact, with thousands separators', () => {
    assert.equal(modelNumber(36_760), '36,760');
    assert.equal(modelNumber(1_234_567.4), '1,234,567');
    assert.equal(modelNumber(0), '0');
  });

  it('formats numbers into text only in the two homes (people: protocol/format.ts, the model: common/model-numbers.ts)', () => {
    const offenders = readdirSync(SRC, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => relative(SRC, join(e.parentPath, e.name)).split(sep).join('/'))
      .filter((p) => !HOMES.includes(p) && /\.toLocaleString\(|Intl\.NumberFormat/.test(readFileSync(join(SRC, p), 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('a stored result’s stub uses it', () => {
    assert.match(buildStub('run_command', 48_231, 'line\n', 'res_1'), /48,231 bytes from "run_command"/);
  });
});
