/// <reference lib="dom" />
/**
 * In a real VS Code with the fake provider streaming slowly: the
 * meter's used figure, sampled every few milliseconds while a turn runs, never drops below the idle
 * figure shown before the turn (the system prompt and tools stay counted during the first answer and
 * while it streams); the meter says how far auto-compaction is ("…k to compact"); the history
 * lists the session's total cost, which survives a reload of the window. In Dark Modern, Light Modern,
 * High Contrast and a 320 px sidebar. Screenshots: test-results/e2e/money-<state>-<variant>.png.
 */
import * as assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { addSpend, emptySpend } from '../../src/context/cost';
import { pricesFor } from '../../src/context/models';
import { toHistoryView } from '../../src/panel/history-view';
import type { HostToWebview } from '../../src/protocol/messages';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { textContrast } from './contrast';
import {
  assertNoSidewaysSpill,
  inject,
  narrowSidebar,
  openHeadroomView,
  openWorkbench,
  runPaletteCommand,
  screenshotPath,
  type Theme,
} from './workbench';

/** A priced model of the table (the fake answers any model id), with a small window so the distances are readable. */
const MODEL = 'gpt-4.1';
const SETTINGS = (fake: FakeProvider) => ({
  'headroom.provider': 'openai-compatible',
  'headroom.baseUrl': fake.openaiBaseUrl,
  'headroom.model': MODEL,
  'headroom.models': { [MODEL]: { contextWindow: 32_000, maxOutput: 4_000 } },
});

/** "4.3k / 32k (13 %)" → 4300; undefined for a label without a figure. */
function usedOf(label: string): number | undefined {
  const m = /^([\d.]+)(k|M)? \//.exec(label.trim());
  return m ? Number(m[1]) * (m[2] === 'k' ? 1_000 : m[2] === 'M' ? 1_000_000 : 1) : undefined;
}

/**
 * Starts sampling the meter's label inside the webview: every 10 ms and on every change. (A string,
 * not a function: the test's compiler would name the inner function with a helper the page lacks.)
 */
async function startSampling(frame: Frame): Promise<void> {
  await frame.evaluate(`(() => {
    window.__samples = [];
    const text = (id) => document.querySelector('[data-testid=' + id + ']')?.textContent ?? '';
    const take = () => window.__samples.push(text('meter-label') + ' | ' + text('meter-accuracy'));
    window.__sampler = window.setInterval(take, 10);
    new MutationObserver(take).observe(document.querySelector('.hr-top') ?? document.body, { childList: true, subtree: true, characterData: true });
  })()`);
}

async function stopSampling(frame: Frame): Promise<string[]> {
  return frame.evaluate(() => {
    const w = window as unknown as { __samples: string[]; __sampler?: number };
    window.clearInterval(w.__sampler);
    return w.__samples;
  });
}

/** Sessions as the store lists them: priced, no prices, partly priced, and one from before costs were kept. */
function historyFixture(): HostToWebview {
  const haiku = pricesFor('claude-haiku-4-5');
  const hour = 3_600_000;
  const now = Date.now();
  const priced = addSpend(emptySpend(), { input: 300_000, output: 24_000, cacheRead: 120_000, cacheWrite: 8_000 }, haiku);
  const unpriced = addSpend(emptySpend(), { input: 52_000, output: 3_100, cacheRead: 0, cacheWrite: 0 }, undefined);
  const mixed = addSpend(priced, { input: 5_000, output: 100, cacheRead: 0, cacheWrite: 0 }, undefined);
  const row = (id: string, title: string, ago: number, messageCount: number, spend?: typeof priced) => ({
    id,
    title,
    createdAt: now - ago,
    updatedAt: now - ago,
    messageCount,
    bytes: 2_000 * messageCount,
    spend,
  });
  return {
    type: 'history/list',
    history: toHistoryView({
      sessions: [
        row('ses_f1', 'Fix the parser tests', 2 * hour, 42, priced),
        row('ses_f2', 'Local llama: explain the build', 26 * hour, 12, unpriced),
        row('ses_f3', 'Refactor the store', 3 * 24 * hour, 1, mixed),
        row('ses_f4', 'Written by 0.1.0', 40 * 24 * hour, 8),
      ],
      snapshots: [],
      currentSessionId: 'ses_f1',
      canUndoCompaction: false,
      timeline: [],
    }),
  };
}

const variants: Array<{ name: string; theme: Theme; sidebar?: number }> = [
  { name: 'dark', theme: 'Default Dark Modern' },
  { name: 'light', theme: 'Default Light Modern' },
  { name: 'hc', theme: 'Default High Contrast' },
  { name: '320', theme: 'Default Dark Modern', sidebar: 320 },
];

describe('meter and session cost in a real VS Code: never drops, to compact, cost in the history', function () {
  this.timeout(300_000);
  let fake: FakeProvider;
  /** The spec's own session (started in the first window) and its total as the last window's history showed it. */
  let ours: { id: string; dollars: number } | undefined;
  before(async () => {
    // Events 40 ms apart: the answer streams for seconds, sampled many times.
    fake = await startFakeProvider({ eventDelayMs: 40 });
  });
  after(async () => {
    await fake?.close();
  });

  for (const v of variants) {
    it(`samples the meter through a slow turn, shows "to compact" and the session's cost (${v.name})`, async () => {
      const { page, webviewProblems } = await openWorkbench(v.theme, SETTINGS(fake));
      try {
        const frame = await openHeadroomView(page);
        await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
        if (v.sidebar) await narrowSidebar(page, v.sidebar);
        if (!ours) {
          // A session of its own: the suites before this one leave sessions whose requests went to unpriced
          // models, and their total rightly reads "$…+". Every later window resumes this one.
          await runPaletteCommand(page, 'Headroom: New Session');
          await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
        }
        await runTurn(page, frame, v.name);
        await checkUntil(frame);
        await shot(page, frame, 'meter', v.name);
        await checkDetails(page, frame, v.name);
        await checkHistory(page, frame, v.name, (id, cost, rows) => {
          // The same session in every window: a reload resumes it, and its total (stored, then this
          // window's priced turn added) only grows.
          const dollars = Number(cost.slice(1));
          if (ours) {
            assert.equal(id, ours.id, `the window resumed the session the first window used; the history: ${rows}`);
            assert.ok(dollars > ours.dollars, `the total survived the reload and grew: ${ours.dollars} → ${cost}`);
          }
          ours = { id, dollars };
        });
        await inject(frame, historyFixture());
        const unknown = frame.locator('[data-id=ses_f2] [data-testid=session-cost]');
        assert.equal(await unknown.textContent(), 'cost unknown');
        assert.equal(
          await frame.locator('[data-id=ses_f4] [data-testid=session-cost]').count(),
          0,
          'no figure, not $0, for an old session',
        );
        assert.match(
          (await frame.locator('[data-id=ses_f4] .hr-muted').first().textContent()) ?? '',
          /^\d+ \w{3}( \d{4})? · 8 messages · /,
        );
        assert.match((await frame.locator('[data-id=ses_f3] .hr-muted').first().textContent()) ?? '', /^3 days ago · 1 message · /);
        await shot(page, frame, 'history-fixture', v.name);
        if (v === variants.at(-1)) {
          // Leave a fresh session for the suites after this one.
          await frame.getByRole('button', { name: 'Start a new session' }).click();
          await frame.locator('[data-testid=session-line]', { hasText: '0 in context' }).waitFor({ timeout: 20_000 });
        }
        assert.deepEqual(webviewProblems, []);
      } catch (err) {
        await page.screenshot({ path: screenshotPath(`failure-money-${v.name}`) }).catch(() => {});
        throw err;
      } finally {
        await page.close();
      }
    });
  }

  /**
   * One turn, answered slowly, the meter sampled throughout. Until the answer's usage report makes the
   * figure "confirmed" (the first answer and its streaming) it never shows less than the settled idle
   * figure before the turn; after it, never less than what the provider counted for that request.
   */
  async function runTurn(page: Page, frame: Frame, name: string): Promise<void> {
    const label = async () => (await frame.locator('[data-testid=meter-label]').textContent()) ?? '';
    await frame.waitForFunction(() => / \/ /.test(document.querySelector('[data-testid=meter-label]')?.textContent ?? ''), undefined, {
      timeout: 30_000,
    });
    // The idle figure a user sees: settled once the tokenizer's exact counts replaced the first estimates.
    let idleLabel = await label();
    for (let stable = 0; stable < 8;) {
      await page.waitForTimeout(250);
      const now = await label();
      stable = now === idleLabel ? stable + 1 : 0;
      idleLabel = now;
    }
    const idle = usedOf(idleLabel);
    assert.ok(idle !== undefined && idle > 0, `an idle figure before the turn: "${idleLabel}"`);
    await startSampling(frame);
    const requests = fake.requests.length;
    fake.script.push({
      text: `Here is the plan (${name}): ${'first read the file, then change it, then run the tests. '.repeat(30)}`,
      chunkChars: 12,
    });
    const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
    await box.fill(`Plan the change (${name}). ${'Keep file names in lowercase. '.repeat(20)}`);
    await box.press('Enter');
    await frame.locator('[data-testid=stop]').waitFor({ state: 'visible', timeout: 20_000 });
    await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 60_000 });
    const samples = (await stopSampling(frame)).filter((s) => usedOf(s) !== undefined);
    assert.equal(fake.requests.length, requests + 1);
    const sent = fake.requests[requests].inputTokens;
    assert.ok(samples.length >= 50, `sampled the meter ${samples.length} times during the turn`);
    const confirmedAt = samples.findIndex((s) => / \| .*from the server/.test(s));
    assert.ok(confirmedAt > 0, `the answer's report made the figure confirmed: ${[...new Set(samples)].join(' || ')}`);
    const streaming = samples.slice(0, confirmedAt);
    assert.ok(streaming.length >= 20, `${streaming.length} samples while the first answer streamed`);
    const below = [...new Set(streaming.filter((s) => usedOf(s)! < idle))];
    assert.deepEqual(below, [], `idle "${idleLabel}"; until the answer's report: ${[...new Set(streaming)].join(' || ')}`);
    // Shown in tenths of thousands: a figure at or above the provider's count rounds to no less than it less 50.
    const underProvider = [...new Set(samples.slice(confirmedAt).filter((s) => usedOf(s)! < sent - 50))];
    assert.deepEqual(underProvider, [], `the provider counted ${sent} for the request`);
  }

  async function checkUntil(frame: Frame): Promise<void> {
    const until = frame.locator('[data-testid=meter-until-compact]');
    await until.waitFor({ timeout: 20_000 });
    const text = (await until.textContent()) ?? '';
    const m = /^([\d.]+)(k)? to compact$/.exec(text);
    assert.ok(m, `"${text}"`);
    const tokens = Number(m[1]) * (m[2] ? 1_000 : 1);
    const used = usedOf((await frame.locator('[data-testid=meter-label]').textContent()) ?? '') ?? 0;
    // 95 % of the 32k window less the 4k output and the buffer: used + until lands at that threshold.
    assert.ok(used + tokens > 20_000 && used + tokens < 28_000, `${used} used + ${tokens} until`);
    assert.ok((await textContrast(frame, '[data-testid=meter-until-compact]')) >= 4.5, 'readable');
  }

  /**
   * The header is one line (two in a narrow sidebar) and the chat keeps its room; Details opens over the
   * chat, its facts in words a user reads, each readable ("from the server" included: it was theme
   * green, ~2:1 on Light).
   */
  async function checkDetails(page: Page, frame: Frame, name: string): Promise<void> {
    const heights = () =>
      frame.evaluate(() => ({
        panel: window.innerHeight,
        top: document.querySelector('.hr-top')!.getBoundingClientRect().height,
        chat: document.querySelector('.hr-chat')!.getBoundingClientRect().height,
      }));
    const closed = await heights();
    // The workbench is 800 px high, so the view is less; the header and the prompt box are what the chat is not.
    console.log(`      header ${closed.top} px, chat ${closed.chat} of ${closed.panel} px (${name})`);
    assert.ok(closed.chat / closed.panel >= 0.7, `the chat keeps ${closed.chat} of ${closed.panel} px (${name})`);
    const summary = frame.locator('[data-testid=meter-details] summary');
    await summary.focus();
    await page.keyboard.press('Enter');
    const accuracy = frame.locator('[data-testid=meter-accuracy]');
    await accuracy.waitFor();
    assert.match((await accuracy.textContent()) ?? '', /from the server/);
    assert.match((await frame.locator('[data-testid=meter-share]').textContent()) ?? '', /^\d+ % of the [\d.]+k this model can take$/);
    assert.equal((await heights()).chat, closed.chat, 'the card lies over the chat');
    for (const sel of [
      '[data-testid=meter-share]',
      '[data-testid=meter-accuracy]',
      '[data-testid=meter-cost]',
      '.hr-meter-details dt',
      '.hr-meter-details dd',
    ])
      if (await frame.locator(sel).count()) assert.ok((await textContrast(frame, sel)) >= 4.5, `${sel} is readable (${name})`);
    await shot(page, frame, 'meter-details', name);
    await page.keyboard.press('Escape');
    await accuracy.waitFor({ state: 'hidden' });
  }

  async function checkHistory(
    page: Page,
    frame: Frame,
    name: string,
    seen: (id: string, cost: string, rows: string) => void,
  ): Promise<void> {
    const meterCost = (await frame.locator('[data-testid=meter-cost]').textContent()) ?? '';
    assert.match(meterCost, /^\$[\d.]+ this turn · \$[\d.]+ session/, `the meter's cost: "${meterCost}"`);
    await frame.getByRole('button', { name: 'Session history and snapshots' }).click();
    const current = frame.locator('.hr-row', { has: frame.locator('button', { hasText: '(current)' }) });
    const cost = current.locator('[data-testid=session-cost]');
    await cost.waitFor({ timeout: 20_000 });
    const label = (await cost.textContent()) ?? '';
    // What each listed session shows, for a failure's message.
    const rows = (
      await frame.locator('.hr-row').evaluateAll((els) => els.map((e) => `[${e.getAttribute('data-id')}] ${e.textContent}`))
    ).join(' | ');
    // Every request of this session went to a priced model: a plain figure, no "+" for unpriced requests.
    assert.match(label, /^\$\d+\.\d+$/, `the session's total in the history: "${label}"; the history: ${rows}`);
    // The meter's session total is the same figure the history lists.
    assert.ok(meterCost.includes(`${label} session`), `meter "${meterCost}" vs history "${label}"`);
    assert.match(
      (await cost.getAttribute('title')) ?? '',
      // A figure under a tenth of a cent reads "<$0.001" (most of the input came from the cache).
      /^input <?\$[\d.]+ · output <?\$[\d.]+ · cache reads .* tokens in .* out · \d+ requests?$/,
    );
    assert.match((await current.locator('.hr-muted').first().textContent()) ?? '', /^(just now|\d+ min ago) · \d+ messages · /);
    seen((await current.getAttribute('data-id')) ?? '', label, rows);
    await shot(page, frame, 'history', name);
  }

  async function shot(page: Page, frame: Frame, state: string, variant: string): Promise<void> {
    await page.mouse.move(5, 5); // no hover tooltip over the panel
    await page.waitForTimeout(250);
    await assertNoSidewaysSpill(frame, `${state} (${variant})`);
    await page.screenshot({ path: screenshotPath(`money-${state}-${variant}`) });
  }
});
