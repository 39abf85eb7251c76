import assert from 'node:assert/strict';
import { z } from 'zod';
import { PROVIDER_IDS } from '../../src/common/provider-catalogue';
import { acceptsImages, findModel, MODEL_TABLE, supportsReasoning } from '../../src/context/models';
import raw from '../../src/context/model-table.json';

const count = z.number().int().positive();
const usd = z.number().finite().nonnegative();
/** The shape every row must have: nothing missing, nothing extra. */
const Row = z.strictObject({
  match: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/),
  provider: z.enum(PROVIDER_IDS),
  contextWindow: count,
  maxOutput: count,
  family: z.enum(['o200k', 'cl100k', 'claude']),
  cache: z.enum(['explicit', 'automatic', 'none']),
  thinking: z.enum(['adaptive', 'budget', 'effort', 'none']),
  efforts: z
    .array(z.enum(['low', 'medium', 'high', 'xhigh', 'max']))
    .min(1)
    .optional(),
  thinkingOff: z.boolean().optional(),
  sampling: z.literal(false).optional(),
  images: z.boolean(),
  lifecycle: z.enum(['deprecated', 'retired']).optional(),
  retiresAt: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional(),
  price: z.strictObject({ input: usd, output: usd, cacheRead: usd, cacheWrite: usd }),
});

describe('context model table: the data file', () => {
  it('has only complete rows (window, max output, four prices), checked on a stated day against cited pages', () => {
    assert.ok(raw.models.length >= 20);
    assert.match(raw.checked, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(raw.sources.length >= 4 && raw.sources.every((u) => /^https:\/\/(platform\.claude\.com|developers\.openai\.com)\//.test(u)));
    for (const row of raw.models) {
      const r = Row.safeParse(row);
      assert.ok(r.success, `${JSON.stringify(row)}: ${r.success ? '' : r.error.message}`);
    }
  });

  it('has sane figures: output fits the window, cache reads cost no more than input, output costs at least input', () => {
    for (const m of MODEL_TABLE) {
      assert.ok(m.contextWindow >= 8_192 && m.contextWindow <= 10_000_000, `${m.match} window ${m.contextWindow}`);
      assert.ok(m.maxOutput <= m.contextWindow, `${m.match} maxOutput over the window`);
      assert.ok(m.price.input > 0 && m.price.output >= m.price.input, `${m.match} prices`);
      assert.ok(m.price.cacheRead <= m.price.input, `${m.match} cache read dearer than input`);
      // Anthropic bills cache writes at a premium over input; OpenAI caches automatically at no write cost.
      if (m.cache === 'explicit') assert.ok(m.price.cacheWrite >= m.price.input, `${m.match} cache write`);
      else assert.equal(m.price.cacheWrite, 0, `${m.match} cache write`);
      assert.equal(m.family === 'claude', m.provider === 'anthropic', `${m.match} tokenizer family`);
      // Efforts belong to adaptive and effort models; adaptive-only models refuse sampling parameters.
      assert.equal(m.efforts.length > 0, m.thinking === 'adaptive' || m.thinking === 'effort', `${m.match} efforts`);
      if (!m.sampling) assert.ok(m.thinking === 'adaptive', `${m.match} sampling`);
    }
  });

  it("knows today's lineup: 1M-window adaptive Claude models at their published prices, the retired ones marked", () => {
    assert.deepEqual(
      ['claude-opus-4-7', 'claude-opus-4-8', 'claude-opus-5-5', 'claude-fable-5-2', 'claude-sonnet-5-5', 'claude-haiku-5-5'].map((id) => {
        const m = findModel(id)!;
        return [m.match, m.contextWindow, m.thinking];
      }),
      [
        ['claude-opus-4-7', 1_000_000, 'adaptive'],
        ['claude-opus-4-8', 1_000_000, 'adaptive'],
        ['claude-opus-5-5', 1_000_000, 'adaptive'],
        ['claude-fable-5-2', 1_000_000, 'adaptive'],
        ['claude-sonnet-5-5', 1_000_000, 'adaptive'],
        ['claude-haiku-5-5', 1_000_000, 'adaptive'],
      ],
    );
    assert.deepEqual([findModel('claude-opus-4-8')!.price.input, findModel('claude-opus-4-8')!.price.output], [5, 25]);
    assert.equal(findModel('claude-opus-4-1')?.lifecycle, 'retired');
    assert.equal(findModel('claude-sonnet-4-5')?.lifecycle, 'deprecated');
    assert.equal(findModel('gpt-6.1-terra')?.contextWindow, 1_050_000);
  });

  it('has one row per match, and the longest prefix picks the specific row', () => {
    const matches = MODEL_TABLE.map((m) => m.match);
    assert.equal(new Set(matches).size, matches.length, 'duplicate match');
    assert.equal(findModel('gpt-5-mini-2025-08-07')?.price.input, 0.25);
    assert.equal(findModel('gpt-5-2025-08-07')?.price.input, 1.25);
    assert.equal(findModel('o3-mini')?.match, 'o3-mini');
    assert.equal(findModel('claude-opus-4-5-20251101')?.price.output, 25);
  });

  it('knows which models reason, also for OpenAI ids not in the table', () => {
    assert.equal(supportsReasoning('gpt-5-mini'), true);
    assert.equal(supportsReasoning('gpt-5-chat-latest'), false);
    assert.equal(supportsReasoning('gpt-4.1'), false);
    assert.equal(supportsReasoning('o3-pro'), true);
    assert.equal(supportsReasoning('gpt-5.1-codex-max'), true);
    assert.equal(supportsReasoning('gpt-7-nova'), true);
    assert.equal(supportsReasoning('llama3.1:8b'), false);
  });

  it('knows which models accept images; VS Code models take none, unknown server models are unknown', () => {
    assert.equal(acceptsImages('claude-sonnet-4-5-20250929', 'anthropic'), true);
    assert.equal(acceptsImages('claude-9-future', 'anthropic'), true);
    assert.equal(acceptsImages('gpt-4o-mini', 'openai'), true);
    assert.equal(acceptsImages('o3-mini', 'openai'), false);
    assert.equal(acceptsImages('gpt-3.5-turbo', 'openai'), false);
    assert.equal(acceptsImages('gpt-4o', 'vscode-lm'), false);
    assert.equal(acceptsImages('llama3.1:8b', 'openai-compatible'), undefined);
  });
});
