/// <reference lib="dom" />
/**
 * A scripted session end to end: real VS Code (code-server) with the packaged extension, the panel in
 * Chromium, and the fake provider (test/fixtures/fake-provider) answering as an OpenAI-compatible
 * server. Everything the panel shows here comes from the real host, loop, tools and store.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { startFakeProvider, type FakeProvider, type FakeStep } from '../fixtures/fake-provider';
import { e2e } from './setup';
import { fakeProviderSettings, headroomFrame, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath } from './workbench';

let fake: FakeProvider;
let page: Page;
let frame: Frame;
let problems: string[];

/** The meter's "used" figure in tokens, parsed from "83.2k / 123k (68 %)"; 0 before any request. */
/**
 * Runs Search History… and types `query` (it searches as one types); resolves with the first hit whose
 * row mentions `rowText` once the title counts the matches (`done`: what it must say then).
 */
async function searchHistory(query: string, rowText: string, done: RegExp = /match/): Promise<Locator> {
  await runPaletteCommand(page, 'Headroom: Search History…');
  const title = page.locator('.quick-input-widget .quick-input-title');
  await title.filter({ hasText: 'Search History' }).waitFor({ timeout: 20_000 });
  await page.locator('.quick-input-widget input').fill(query);
  await title.filter({ hasText: done }).waitFor({ timeout: 20_000 });
  const hit = page.locator('.quick-input-widget .monaco-list-row', { hasText: rowText }).first();
  await hit.waitFor({ timeout: 20_000 });
  return hit;
}

async function meterUsed(): Promise<number> {
  const text = await frame.locator('[data-testid=meter-label]').innerText();
  const m = /^([\d.]+)(k|M)? \//.exec(text);
  if (!m) return 0;
  return Number(m[1]) * (m[2] === 'k' ? 1_000 : m[2] === 'M' ? 1_000_000 : 1);
}

/** Every meter label the panel showed since the last call (a MutationObserver inside the webview). */
async function meterHistory(): Promise<string[]> {
  return frame.evaluate(() => {
    const w = window as unknown as { __labels?: string[] };
    const out = w.__labels ?? [];
    w.__labels = [];
    return out;
  });
}

async function send(text: string): Promise<void> {
  const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
  await box.fill(text);
  await box.press('Enter');
}

/**
 * Sends `prompt` with the provider scripted to answer `steps`, and waits until the provider got all
 * its requests, the last answer is on screen, and the panel is idle again.
 */
async function turn(prompt: string, steps: FakeStep[], lastText: string): Promise<void> {
  const target = fake.requests.length + steps.length;
  fake.script.push(...steps);
  await send(prompt);
  const deadline = Date.now() + 60_000;
  while (fake.requests.length < target) {
    if (Date.now() > deadline) throw new Error(`the provider got ${fake.requests.length} of ${target} requests`);
    await page.waitForTimeout(100);
  }
  await frame.locator('.hr-assistant', { hasText: lastText }).first().waitFor({ timeout: 30_000 });
  await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
}

/** Resolves when the meter shows less than `tokens` used. */
async function meterBelow(tokens: number): Promise<void> {
  await frame.waitForFunction(
    (b) => {
      const t = document.querySelector('[data-testid=meter-label]')?.textContent ?? '';
      const m = /^([\d.]+)(k)? \//.exec(t);
      return m !== null && Number(m[1]) * (m[2] ? 1000 : 1) < b;
    },
    tokens,
    { timeout: 30_000 },
  );
}

describe('a scripted session in a real VS Code with the fake provider', function () {
  this.timeout(180_000);

  before(async () => {
    // Events 40 ms apart: slower than the panel's 33 ms batching, so each meter update is visible.
    fake = await startFakeProvider({ eventDelayMs: 40 });
    const ws = e2e().workspace;
    writeFileSync(join(ws, 'medium.txt'), Array.from({ length: 80 }, (_, i) => `entry ${i}: a medium sized line of text`).join('\n'));
    writeFileSync(
      join(ws, 'big.txt'),
      Array.from({ length: 300 }, (_, i) => `line ${String(i).padStart(4, '0')} of big.txt ${'.'.repeat(30)}`).join('\n'),
    );
    const opened = await openWorkbench('Default Dark Modern', fakeProviderSettings(fake, 32_000, 4_000));
    page = opened.page;
    problems = opened.webviewProblems;
    frame = await openHeadroomView(page);
    await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
    await frame.evaluate(() => {
      const w = window as unknown as { __labels: string[] };
      w.__labels = [];
      const top = document.querySelector('.hr-top')!;
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid=meter-label]')?.textContent ?? '';
        if (w.__labels.at(-1) !== t) w.__labels.push(t);
      }).observe(top, { childList: true, subtree: true });
    });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page
        ?.screenshot({ path: screenshotPath(`failure-session-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`) })
        .catch(() => {});
  });

  after(async () => {
    await page?.close().catch(() => {});
    await fake?.close();
  });

  it('streams a turn with a tool call, and the meter moves after the messages and the tool result', async () => {
    await turn(
      'What does medium.txt say?',
      [
        {
          text: `Let me read it. ${'I will look at the whole file first. '.repeat(40)}`,
          toolCalls: [{ id: 'call_r1', name: 'read_file', arguments: { path: 'medium.txt' } }],
        },
        {
          text: `It lists **${'numbered lines'}**:\n\n\`\`\`ts\nexport const greeting = "hello";\n\`\`\`\n\n${'The file is a plain list of numbered lines. '.repeat(40)}`,
        },
      ],
      'It lists',
    );
    assert.equal(await frame.locator('.hr-assistant strong', { hasText: 'numbered lines' }).count(), 1);
    assert.equal(await frame.locator('.hr-assistant pre code', { hasText: 'export const greeting' }).count(), 1);
    const card = frame.locator('[data-testid=tool-card]', { hasText: 'read_file' });
    assert.match((await card.locator('summary').textContent()) ?? '', /read_file\s*medium\.txt\s*done/);
    const labels = (await meterHistory()).filter((l) => / \/ /.test(l));
    assert.ok(new Set(labels).size >= 3, `the meter moved during the turn: ${JSON.stringify(labels)}`);
  });

  it('the meter rests on the provider-confirmed figure, shows the cost, and its Details open from the keyboard (screenshot meter-details.png)', async () => {
    const accuracy = (await frame.locator('[data-testid=meter-accuracy]').textContent()) ?? '';
    assert.match(accuracy, /from the server/, `after a reply the figure rests on the provider's count: "${accuracy}"`);
    const cost = (await frame.locator('[data-testid=meter-cost]').textContent()) ?? '';
    assert.match(cost, /this turn|cost unknown/, `the meter says what the turn cost: "${cost}"`);
    const summary = frame.locator('[data-testid=meter-details] summary');
    await summary.focus();
    await page.keyboard.press('Enter');
    const details = frame.locator('[data-testid=meter-details]');
    await frame.waitForFunction(() => document.querySelector<HTMLDetailsElement>('[data-testid=meter-details]')?.open === true);
    const text = (await details.textContent()) ?? '';
    for (const row of ['System prompt', 'Messages', 'Tools', 'Reserved for output', 'Thresholds', 'Window', 'Estimate'])
      assert.ok(text.toLowerCase().includes(row.toLowerCase()), `Details lists "${row}": ${text.slice(0, 400)}`);
    await page.screenshot({ path: screenshotPath('meter-details') });
    await page.keyboard.press('Enter');
  });

  it('shows the context percentage in the status bar, matching the meter, and opens the panel from it', async () => {
    const item = page.locator('.statusbar-item[aria-label^="Headroom context"]');
    await item.waitFor({ timeout: 20_000 });
    const label = (await item.getAttribute('aria-label')) ?? '';
    const pct = Number(/(\d+) percent used/.exec(label)?.[1]);
    assert.ok(pct > 0 && pct < 100, `a percentage after a turn (${label})`);
    assert.match(await item.innerText(), new RegExp(`${pct} %`));
    const meterPct = Number(/\((\d+) %\)/.exec(await frame.locator('[data-testid=meter-label]').innerText())?.[1]);
    assert.ok(Math.abs(meterPct - pct) <= 1, `status bar ${pct} % matches the meter's ${meterPct} %`);
    await page.keyboard.press('Control+Shift+E');
    await item.click();
    // Hiding the view disposed its webview; the reopened panel is a new frame, restored from the host.
    frame = await headroomFrame(page);
    await frame.locator('[data-testid=meter-label]').waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(await frame.locator('.hr-assistant', { hasText: 'It lists' }).count(), 1, 'the transcript came back');
  });

  it('offloads a big tool result and opens it in an editor', async () => {
    await turn(
      'Read big.txt',
      [{ toolCalls: [{ id: 'call_big', name: 'read_file', arguments: { path: 'big.txt' } }] }, { text: 'That file is big.' }],
      'That file is big.',
    );
    const card = frame.locator('[data-testid=tool-card]', { hasText: 'big.txt' });
    assert.equal(await card.locator('.hr-badge').textContent(), 'stored', 'the card says the result was stored');
    await card.locator('summary').click();
    // "stored · 35.9 KB · 400 lines · kept out of context [Open]"
    assert.match(
      (await card.locator('[data-testid=stored-result]').textContent()) ?? '',
      /^stored · [\d.]+ KB · [\d,]+ lines · kept out of context Open$/,
    );
    await page.screenshot({ path: screenshotPath('session-stored-result') });
    await card.getByRole('button', { name: /Open the full result of read_file/ }).click();
    await page.locator('.monaco-editor .view-lines', { hasText: 'line 0000 of big.txt' }).first().waitFor({ timeout: 20_000 });
    // The tab names the source, not the opaque ref id.
    await page
      .locator('.tabs-container .tab', { hasText: /read_file output · [\d.]+ KB/ })
      .first()
      .waitFor({ timeout: 10_000 });
  });

  it("Open Stored Result… offers a pick list of the session's stored results", async () => {
    await runPaletteCommand(page, 'Headroom: Open Stored Result…');
    const item = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'read_file' }).first();
    await item.waitFor({ timeout: 20_000 });
    assert.match((await item.textContent()) ?? '', /KB · [\d,]+ lines/);
    await page.screenshot({ path: screenshotPath('session-open-stored-pick') });
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor .view-lines', { hasText: 'line 0000 of big.txt' }).first().waitFor({ timeout: 20_000 });
  });

  it('Search History… finds an earlier answer and opens it in an editor (screenshot session-search-history.png)', async () => {
    const hit = await searchHistory('plain list of numbered lines', 'Headroom');
    assert.match((await hit.textContent()) ?? '', /turn \d+/);
    await page.screenshot({ path: screenshotPath('session-search-history') });
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor .view-lines', { hasText: 'plain list of numbered lines' }).first().waitFor({ timeout: 20_000 });
  });

  it('Search History… opens a stored result at the hit, selected, not at its first line', async () => {
    const hit = await searchHistory('line 0280 of big.txt', 'read_file');
    await hit.click();
    const editor = page.locator('.monaco-editor', { hasText: 'line 0280 of big.txt' }).first();
    await editor.waitFor({ timeout: 20_000 });
    // Scrolled to the hit: the first lines are out of the rendered view, and the hit is selected.
    await editor.locator('.selected-text').first().waitFor({ timeout: 20_000 });
    assert.equal(await editor.locator('.view-line', { hasText: 'line 0000 of big.txt' }).count(), 0);
  });

  it('Search History… finds hits in every session, opens one without switching, and switches with Open session (screenshot session-search-all-sessions.png)', async () => {
    await runPaletteCommand(page, 'Headroom: New Session');
    await frame.locator('.hr-assistant', { hasText: 'It lists' }).waitFor({ state: 'detached', timeout: 20_000 });
    await turn('Are the numbered lines sorted?', [{ text: 'Yes: the numbered lines are sorted by their number.' }], 'Yes: the numbered');
    // This session's hit first, then the earlier session's, labelled with its title and age.
    const earlier = await searchHistory('numbered lines', 'plain list of numbered lines', /in 2 sessions/);
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    assert.match((await rows.first().textContent()) ?? '', /this session.*sorted by their number/);
    assert.match((await earlier.textContent()) ?? '', /What does medium\.txt say\?.* · (just now|\d+ min ago)/);
    await page.screenshot({ path: screenshotPath('session-search-all-sessions') });
    await earlier.click();
    await page.locator('.monaco-editor .view-lines', { hasText: 'plain list of numbered lines' }).first().waitFor({ timeout: 20_000 });
    assert.equal(await frame.locator('.hr-assistant', { hasText: 'sorted by their number' }).count(), 1, 'still in the new session');
    assert.equal(await frame.locator('.hr-assistant', { hasText: 'It lists' }).count(), 0);
    // Its Open session button switches to the earlier session (where the rest of this suite goes on).
    const again = await searchHistory('plain list of numbered lines', 'What does medium.txt say');
    await again.hover();
    await again.locator('.action-label[aria-label="Open session"], .action-label[title="Open session"]').first().click();
    await frame.locator('.hr-assistant', { hasText: 'It lists' }).first().waitFor({ timeout: 20_000 });
    assert.equal(await frame.locator('.hr-assistant', { hasText: 'sorted by their number' }).count(), 0);
  });

  it('asks before writing a file, and approving writes it', async () => {
    const target = join(e2e().workspace, 'created.ts');
    fake.script.push(
      { toolCalls: [{ id: 'call_w1', name: 'write_file', arguments: { path: 'created.ts', content: 'export const created = true;\n' } }] },
      { text: 'Created it.' },
    );
    await send('Create created.ts');
    const approval = frame.locator('[data-testid=approval]');
    await approval.waitFor({ timeout: 30_000 });
    assert.match((await approval.textContent()) ?? '', /Create\s*created\.ts\s*\+1 −0 lines/);
    assert.equal(existsSync(target), false);
    await frame.getByRole('button', { name: 'Approve the edit' }).click();
    await frame.locator('.hr-assistant', { hasText: 'Created it.' }).waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(target, 'utf8'), 'export const created = true;\n');
    await frame.locator('[data-testid=approval]', { hasText: 'Approved.' }).waitFor();
    // "Work so far" recorded the file as the turn ran.
    await frame.locator('[data-testid=work-so-far]', { hasText: 'Work so far' }).waitFor({ timeout: 20_000 });
    await frame.locator('[data-testid=work-so-far] summary').click();
    await frame.locator('[data-testid=work-so-far]', { hasText: 'created.ts' }).waitFor();
    await frame.locator('[data-testid=work-so-far] summary').click();
    await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
  });

  it('compacts with the Compact button, and /compact compacts too', async () => {
    const long = (label: string): FakeStep => ({ text: `${label}: ${'words '.repeat(1_500)}`, chunkChars: 8_000 });
    for (let i = 0; i < 5; i++) await turn(`Question ${i}: ${'context '.repeat(300)}`, [long(`Answer ${i}`)], `Answer ${i}:`);
    const before = await meterUsed();
    await frame.getByRole('button', { name: 'Compact the context now' }).click();
    await meterBelow(before);
    // The card in plain words, with Undo; the chat keeps the earlier turns under a divider.
    const card = frame.locator('[data-testid=compaction]').last();
    await card.locator('[data-testid=compaction-kept]').waitFor({ timeout: 20_000 });
    assert.match((await card.locator('[data-testid=compaction-kept]').textContent()) ?? '', /^kept: /);
    assert.doesNotMatch((await card.textContent()) ?? '', /clear_tool_results|drop_oldest_turns/);
    await frame.locator('[data-testid=divider]').first().waitFor();
    assert.ok((await frame.locator('.hr-user', { hasText: 'Question 0' }).count()) >= 1, 'the first question is still shown');
    await card.getByRole('button', { name: 'Undo' }).waitFor();
    for (let i = 0; i < 5; i++) await turn(`Again ${i}: ${'context '.repeat(300)}`, [long(`More ${i}`)], `More ${i}:`);
    const beforeSlash = await meterUsed();
    await send('/compact keep the greeting');
    await meterBelow(beforeSlash);
    await page.screenshot({ path: screenshotPath('session-after-compact') });
  });

  it('crossing the compact threshold compacts during a turn and shows what it freed', async () => {
    const long = (label: string): FakeStep => ({ text: `${label}: ${'words '.repeat(2_500)}`, chunkChars: 8_000 });
    // Earlier tests compacted by hand (those cards say "Compacted:"); this one waits for the automatic one.
    const automatic = frame.locator('[data-testid=compaction]', { hasText: 'Compacted automatically' });
    for (let i = 0; i < 12 && (await automatic.count()) === 0; i++) {
      await turn(`Round ${i}: ${'context '.repeat(500)}`, [long(`Reply ${i}`)], `Reply ${i}:`);
    }
    const item = automatic.first();
    await item.waitFor({ timeout: 5_000 });
    assert.match((await item.textContent()) ?? '', /Compacted automatically: [\d.]+k → [\d.]+k tokens, freed [\d.]+k/);
    assert.match(await frame.locator('[data-testid=meter-freed]').innerText(), /^freed [\d.]+k$/);
    await page.screenshot({ path: screenshotPath('session-auto-compaction') });
  });

  it('saves and restores a snapshot from the history view', async () => {
    await frame.getByRole('button', { name: 'Session history and snapshots' }).click();
    const history = frame.locator('[data-testid=history]');
    await frame.getByRole('textbox', { name: 'Snapshot name' }).fill('e2e snapshot');
    await frame.getByRole('button', { name: 'Save a snapshot of the current context' }).click();
    // The snapshot is one rewind point of the session's timeline; Restore asks once more before it rewinds.
    const restore = history.getByRole('button', { name: /^Restore: Snapshot “e2e snapshot”/ });
    await restore.waitFor({ timeout: 20_000 });
    await page.screenshot({ path: screenshotPath('session-history') });
    await restore.click();
    await history.getByRole('button', { name: /^Confirm: Restore gives the model these/ }).click();
    await frame.getByRole('button', { name: 'Back to the chat' }).click();
    await frame.locator('.hr-user').first().waitFor({ timeout: 20_000 });
    // The transcript is never replaced: the earlier turns stay, under a divider, and the restored context follows.
    await frame.locator('[data-testid=divider]', { hasText: 'snapshot restored' }).waitFor({ timeout: 20_000 });
    assert.ok((await frame.locator('.hr-user', { hasText: 'Question 0' }).count()) >= 1, 'the first question is still shown');
    await page.screenshot({ path: screenshotPath('session-after-restore') });
  });

  it('clears the context after asking once: the meter drops back, the chat stays under a divider', async () => {
    if (await frame.getByRole('button', { name: 'Back to the chat' }).count())
      await frame.getByRole('button', { name: 'Back to the chat' }).click();
    const before = await meterUsed();
    // Clear is behind the meter's Details.
    if (!(await frame.locator('[data-testid=meter-details]').evaluate((d) => (d as HTMLDetailsElement).open)))
      await frame.locator('[data-testid=meter-details] summary').click();
    await frame.getByRole('button', { name: /^Clear the context/ }).click();
    // VS Code's modal (the workbench's, outside the webview) asks before the model forgets everything.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    assert.match((await dialog.textContent()) ?? '', /Clear the context\?/);
    await page.screenshot({ path: screenshotPath('session-clear-confirm') });
    await dialog.getByRole('button', { name: 'Clear', exact: true }).click();
    await dialog.waitFor({ state: 'detached', timeout: 20_000 });
    await frame.locator('[data-testid=divider]', { hasText: 'context cleared' }).waitFor({ timeout: 20_000 });
    await meterBelow(before);
    const after = await meterUsed();
    assert.ok(after < before / 2, `Clear reset the meter: ${before} → ${after}`);
    // Only the model forgets: what the chat showed stays above the divider.
    assert.ok((await frame.locator('.hr-user', { hasText: 'Question 0' }).count()) >= 1, 'the earlier turns are still shown');
    // "Work so far" (it listed created.ts above) starts over with the context: a later compaction must not bring it back.
    await frame.locator('[data-testid=work-so-far]').waitFor({ state: 'hidden', timeout: 20_000 });
    await page.screenshot({ path: screenshotPath('session-cleared') });
    assert.deepEqual(problems, [], 'no console errors or CSP violations in the webview');
  });
});
