/// <reference lib="dom" />
/**
 * The provider's own compaction in a real VS Code (code-server + Chromium, the packaged extension): a
 * session on a model whose Models API entry declares `compact_20260112`, against the fake's Anthropic
 * endpoint, compacts natively three times (twice by crossing the threshold, once with the Compact
 * button). After each: the compaction request carried the native edit; the next request carries
 * Headroom's history message with the work ledger and the user's standing instruction; the card lists
 * what left the context and shows what the compaction cost (its `usage.iterations` entry, priced);
 * `search_history` finds a line that left. After the third, Undo brings the view back: the next
 * request carries the un-compacted messages again. Screenshots of the card: native-compaction-card-dark.png,
 * native-compaction-stored-dark.png (the results its summary stored), native-compaction-card-light.png.
 */
import * as assert from 'node:assert/strict';
import type { Frame, Locator, Page } from 'playwright-core';
import { costOf } from '../../src/context/cost';
import { pricesFor } from '../../src/context/models';
import { formatUsd } from '../../src/protocol/format';
import { writeUserSettings } from '../../scripts/lib/code-server.mjs';
import { startFakeProvider, type FakeProvider, type FakeStep } from '../fixtures/fake-provider';
import type { RecordedRequest } from '../fixtures/fake-provider/script';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';
import { e2e } from './setup';
import { openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath } from './workbench';

const MODEL = 'claude-sonnet-5-5';
const KEY = 'sk-ant-e2e-native-compaction';
const INSTRUCTION = 'Always keep the port at 8080 in every config (rule PORT-1).';
/** The line each cycle's marker turn answers; it leaves the context with that cycle's compaction. */
const fact = (k: number) => `Fact ${k}: the retry budget of module ${k} is ${k}17 ms.`;
/** About 10k tokens of prompt, so a handful of turns cross the threshold of a 90k window. */
const filler = (label: string) => `${label}: ${'module routing retries backoff '.repeat(2_000)}`;

let fake: FakeProvider;
let page: Page;
let frame: Frame;
let problems: string[];
let settings: Record<string, unknown>;

type Body = { messages?: Array<{ role: string; content: unknown }>; context_management?: { edits?: Array<{ type?: string }> } };
const bodyOf = (r: RecordedRequest) => r.body as Body;
const isMessages = (r: RecordedRequest) => r.protocol === 'anthropic' && /\/v1\/messages(\?|$)/.test(r.path);
const isNative = (r: RecordedRequest) =>
  isMessages(r) && (bodyOf(r).context_management?.edits ?? []).some((e) => e.type === 'compact_20260112');
/** The texts of the assistant messages a request carries (not tool results quoting them). */
const assistantTexts = (r: RecordedRequest) =>
  (bodyOf(r).messages ?? [])
    .filter((m) => m.role === 'assistant')
    .flatMap((m) =>
      typeof m.content === 'string' ? [m.content] : (m.content as Array<{ type: string; text?: string }>).map((b) => b.text ?? ''),
    );
const firstMessage = (r: RecordedRequest) => JSON.stringify(bodyOf(r).messages?.[0]?.content ?? '');
/** The text of the history message after its summary and ledger: the instructions it carries. */
const afterLedger = (text: string) => text.slice(text.lastIndexOf('</work-ledger>'));

async function send(text: string): Promise<void> {
  const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
  await box.fill(text);
  await box.press('Enter');
}

/** Sends `prompt` with the provider scripted to answer `steps`; resolves when the last answer is shown and the panel is idle. */
async function turn(prompt: string, steps: FakeStep[], lastText: string): Promise<void> {
  fake.script.push(...steps);
  await send(prompt);
  await frame.locator('.hr-assistant', { hasText: lastText }).first().waitFor({ timeout: 120_000 });
  await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 60_000 });
  assert.equal(fake.script.length, 0, 'every scripted answer was asked for');
}

const cards = () => frame.locator('[data-testid=compaction]');

/** Picks the row of the open quick pick that shows `rowText`, by typing `typed` and pressing Enter. */
async function choose(typed: string, rowText: string): Promise<void> {
  await page.locator('.quick-input-widget input').fill(typed);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: rowText }).first().waitFor({ timeout: 20_000 });
  await page.keyboard.press('Enter');
}

/** Set API Key… for Anthropic, bound to the fake's origin (the configured base URL); an empty key removes it. */
async function setKey(value: string): Promise<void> {
  await runPaletteCommand(page, 'Headroom: Set API Key');
  await choose('Anthropic', 'Anthropic');
  await page.locator('.quick-input-widget', { hasText: 'which server may receive' }).waitFor({ timeout: 20_000 });
  await choose('127.0.0.1', 'a proxy or gateway you configured');
  await page.locator('.quick-input-widget', { hasText: 'Anthropic API key' }).waitFor({ timeout: 20_000 });
  await page.locator('.quick-input-widget input').fill(value);
  await page.keyboard.press('Enter');
}

/**
 * What compaction `k` did, checked from the fake's recorded requests and the card: the native edit was
 * asked for (behind its beta), the card says the provider summarized, prices the compaction's
 * iteration, and lists what left the context.
 */
async function checkCompaction(k: number, since: number, manual: boolean): Promise<{ card: Locator; native: RecordedRequest }> {
  const card = cards().nth(k - 1);
  await card.locator('[data-testid=compaction-kept]').waitFor({ timeout: 30_000 });
  const text = (await card.textContent()) ?? '';
  assert.match(text, manual ? /^Compacted: / : /^Compacted automatically: /, text);
  assert.match(
    (await card.locator('[data-testid=compaction-kept]').textContent()) ?? '',
    /^kept: summary \(by the provider’s compaction\)/,
    'the card says the provider wrote the summary',
  );

  const natives = fake.requests.slice(since).filter((r) => isNative(r) && r.compaction !== undefined);
  assert.ok(natives.length >= 1, `compaction ${k} asked the provider to compact (compact_20260112)`);
  assert.ok(
    natives.every((r) => String(r.headers['anthropic-beta'] ?? '').includes('compact-2026-01-12')),
    'behind its beta',
  );
  // The card's cost is the compaction iteration's usage at the model's prices.
  const prices = pricesFor(MODEL);
  assert.ok(prices, `${MODEL} has prices`);
  const costs = natives.map((r) => formatUsd(costOf(r.compaction!, prices)));
  const shown = /cost (\S+)\./.exec(text)?.[1];
  assert.ok(shown && costs.includes(shown), `the card shows the native compaction's cost ${JSON.stringify(costs)}: "${text}"`);

  // What left the context: the marker turn is among the summarized messages.
  await card.locator('summary', { hasText: 'What left the context' }).click();
  const details = card.locator('[data-testid=compaction-details]');
  await details.getByText(/^Summarized \(\d+\)$/).waitFor({ timeout: 10_000 });
  await details.getByText(fact(k)).first().waitFor({ timeout: 10_000 });
  await details.getByText(`Part ${k} notes`, { exact: false }).first().waitFor({ timeout: 10_000 });
  // The results the summary stored are named by their tool and what the call read, never a bare ref id.
  if (k === 1) await details.getByText('read_file hello.ts', { exact: true }).waitFor({ timeout: 10_000 });
  assert.doesNotMatch((await details.textContent()) ?? '', /res_[0-9a-f]{6,}/);
  return { card, native: natives.at(-1)! };
}

/**
 * The first agent request after compaction `k` (in the same turn when the threshold triggered it, in
 * the next one after the Compact button) starts with Headroom's history message: the provider's
 * summary (it quotes this cycle's marker prompt), the work ledger, and the standing instruction.
 */
function checkNextRequest(k: number, native: RecordedRequest): void {
  const at = fake.requests.indexOf(native);
  const next = fake.requests.slice(at + 1).find((r) => isMessages(r) && !isNative(r) && firstMessage(r).includes(`Part ${k} notes`));
  assert.ok(next, `a request after compaction ${k} starts with its history message`);
  const history = firstMessage(next);
  assert.match(history, /Summary written as instructed/, "the provider's summary is in Headroom's history message");
  assert.match(history, /<work-ledger>[\s\S]*hello\.ts[\s\S]*<\/work-ledger>/, 'the work ledger is carried');
  assert.ok(afterLedger(history).includes('Always keep the port at 8080'), 'the standing instruction is carried');
  assert.ok(!JSON.stringify(bodyOf(next).messages).includes(fact(k)), `the marker answer of cycle ${k} left the context`);
}

/** A `search_history` call scripted in the fake finds cycle `k`'s marker answer, which left the context. */
async function checkSearch(k: number): Promise<void> {
  const since = fake.requests.length;
  await turn(
    `Search the history for the retry budget of module ${k}.`,
    [
      { toolCalls: [{ id: `call_search_${k}`, name: 'search_history', arguments: { query: `retry budget of module ${k}` } }] },
      { text: `Found the budget of module ${k}.` },
    ],
    `Found the budget of module ${k}.`,
  );
  const asked = fake.requests.slice(since).filter((r) => isMessages(r) && !isNative(r));
  const carrying = asked.find(
    (r) => JSON.stringify(bodyOf(r).messages).includes(`call_search_${k}`) && bodyOf(r).messages!.at(-1)?.role === 'user',
  );
  assert.ok(carrying, 'the request after the tool call carries its result');
  const last = bodyOf(carrying).messages!.at(-1)!;
  const result = (last.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>).find(
    (b) => b.type === 'tool_result' && b.tool_use_id === `call_search_${k}`,
  );
  assert.ok(result, 'a tool_result for the search');
  assert.ok(
    JSON.stringify(result.content).includes(`the retry budget of module ${k} is ${k}17 ms`),
    `search_history found: ${JSON.stringify(result.content)}`,
  );
  const before = asked[0];
  assert.ok(
    !JSON.stringify(bodyOf(before).messages).includes(`module ${k} is ${k}17 ms`),
    'the line was not in the context before the search',
  );
}

/** Turns of about 10k tokens each until compaction `k` happened automatically. */
async function fillUntilCompaction(k: number): Promise<void> {
  for (let i = 0; i < 14 && (await cards().count()) < k; i++) {
    await turn(filler(`Cycle ${k} round ${i}`), [{ text: `Round ${k}.${i} done.` }], `Round ${k}.${i} done.`);
  }
  await cards()
    .nth(k - 1)
    .waitFor({ timeout: 10_000 });
}

describe('native compaction in a real VS Code: three times, each auditable, searchable and undoable', function () {
  this.timeout(900_000);

  before(async () => {
    fake = await startFakeProvider({ lineup: TODAYS_LINEUP, apiKey: KEY });
    settings = {
      'headroom.provider': 'anthropic',
      'headroom.baseUrl': fake.baseUrl,
      'headroom.model': MODEL,
      'headroom.thinking': 'off',
      // A 90k window (the model's is 1M): the threshold is crossed in a few turns, above the provider's 50k minimum.
      'headroom.models': { [MODEL]: { contextWindow: 90_000, maxOutput: 4_000 } },
    };
    const opened = await openWorkbench('Default Dark Modern', settings);
    page = opened.page;
    problems = opened.webviewProblems;
    frame = await openHeadroomView(page);
    await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
    await runPaletteCommand(page, 'Headroom: New Session');
    await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
    await setKey(KEY);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page
        ?.screenshot({ path: screenshotPath(`failure-native-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`) })
        .catch(() => {});
  });

  after(async () => {
    if (page) {
      // The suites after this one expect no stored Anthropic key and a fresh session.
      await runPaletteCommand(page, 'Headroom: New Session').catch(() => {});
      await setKey('').catch(() => {});
      await page.close().catch(() => {});
    }
    await fake?.close();
  });

  it('compacts natively three times; each time the ledger, the instruction, what left, search and the cost hold; Undo restores the view', async () => {
    await turn(
      INSTRUCTION,
      [
        { toolCalls: [{ id: 'call_hello', name: 'read_file', arguments: { path: 'hello.ts' } }] },
        { text: 'Noted: the port stays at 8080.' },
      ],
      'Noted: the port stays at 8080.',
    );

    for (const k of [1, 2, 3]) {
      const since = fake.requests.length;
      await turn(`Part ${k} notes: ${filler('notes')}`, [{ text: fact(k) }], fact(k));
      const manual = k === 3;
      if (manual) {
        // Below the threshold, above the provider's smallest trigger: the Compact button.
        for (let i = 0; i < 3; i++)
          await turn(filler(`Cycle ${k} round ${i}`), [{ text: `Round ${k}.${i} done.` }], `Round ${k}.${i} done.`);
        await frame.getByRole('button', { name: 'Compact the context now' }).click();
        await cards()
          .nth(k - 1)
          .waitFor({ timeout: 120_000 });
      } else {
        await fillUntilCompaction(k);
      }
      const { card, native } = await checkCompaction(k, since, manual);
      if (k === 1) {
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath('native-compaction-card-dark') });
        await card.getByText('read_file hello.ts', { exact: true }).scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath('native-compaction-stored-dark') });
      }
      await card.locator('summary', { hasText: 'What left the context' }).click();
      await checkSearch(k);
      checkNextRequest(k, native);
    }

    // The third card, in Light Modern (the theme switches live when the settings change).
    writeUserSettings(e2e().userDataDir, { 'workbench.colorTheme': 'Default Light Modern', ...settings });
    await page.locator('.monaco-workbench.vs').waitFor({ timeout: 30_000 });
    const third = cards().nth(2);
    await third.locator('summary', { hasText: 'What left the context' }).click();
    await third.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('native-compaction-card-light') });

    // Undo the third: the next request carries the messages it had compacted.
    const undo = third.getByRole('button', { name: 'Undo' });
    await undo.waitFor({ timeout: 10_000 });
    assert.equal(await undo.isDisabled(), false, 'the newest compaction can be undone');
    await undo.click();
    // The card says so (its button reads Undone), and no turn runs before the host reopened the session.
    await third.getByRole('button', { name: 'Undone' }).waitFor({ timeout: 30_000 });
    const since = fake.requests.length;
    await turn('What is next?', [{ text: 'Next comes the release.' }], 'Next comes the release.');
    const next = fake.requests.slice(since).find((r) => isMessages(r) && !isNative(r));
    assert.ok(next, 'a request after the undo');
    assert.ok(assistantTexts(next).includes(fact(3)), 'the marker answer of the third cycle is back in the context');
    assert.ok(
      firstMessage(next).includes('Part 2 notes') && !firstMessage(next).includes('Part 3 notes'),
      "the view starts at the second compaction's history message again",
    );
    assert.ok(!assistantTexts(next).includes(fact(2)), 'the second compaction still stands');
    assert.deepEqual(problems, [], 'no console errors or CSP violations in the webview');
  });
});
