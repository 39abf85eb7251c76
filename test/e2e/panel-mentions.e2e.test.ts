/// <reference lib="dom" />
/**
 * In a real VS Code (code-server), the host and loop real, the provider the
 * fake one: `@` opens a keyboard picker of workspace files (ignored and secret ones never offered) and
 * the picked file's content reaches the model with the prompt, shown as a chip in the sent bubble (in
 * Dark, Light, High Contrast and at a 320 px side bar); "Add Selection to Headroom" from the editor's
 * context menu and the palette; edit-and-resend of the last prompt (Edit button and ↑).
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { startFakeProvider, type FakeProvider, type RecordedRequest } from '../fixtures/fake-provider';
import { textContrast } from './contrast';
import { e2e } from './setup';
import { narrowSidebar, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath, type Theme } from './workbench';

const CONTENT = 'MENTION-E2E-CONTENT: the parser lives in src/parse.ts';

const SETTINGS = (fake: FakeProvider) => ({
  'headroom.provider': 'openai-compatible',
  'headroom.baseUrl': fake.openaiBaseUrl,
  'headroom.model': 'fake-model',
  'headroom.models': { 'fake-model': { contextWindow: 64_000, maxOutput: 4_000 } },
});

/** Everything the user messages of a request said (OpenAI protocol). */
function userContent(req: RecordedRequest): string {
  const messages = (req.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

/** What the newest user message of a request said. */
function lastUserContent(req: RecordedRequest): string {
  const messages = (req.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const m = messages.filter((x) => x.role === 'user').at(-1);
  return m ? (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) : '';
}

async function answered(frame: Frame, text: string): Promise<void> {
  await frame.locator('.hr-assistant', { hasText: text }).first().waitFor({ timeout: 60_000 });
  await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
}

async function noSidewaysSpill(frame: Frame, label: string): Promise<void> {
  const spill = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(spill <= 1, `${label}: the panel scrolls sideways by ${spill} px`);
}

const variants: Array<{ name: string; theme: Theme; sidebar?: number }> = [
  { name: 'dark', theme: 'Default Dark Modern' },
  { name: 'light', theme: 'Default Light Modern' },
  { name: 'hc', theme: 'Default High Contrast' },
  { name: '320', theme: 'Default Dark Modern', sidebar: 320 },
];

describe('@-mentions, Add Selection and edit-and-resend in a real VS Code', function () {
  this.timeout(300_000);
  let fake: FakeProvider;
  let folder: string;

  before(async () => {
    fake = await startFakeProvider();
    folder = join(e2e().workspace, 'mention-e2e');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'notes-e2e.md'), `${CONTENT}\n`);
    writeFileSync(join(folder, '.gitignore'), 'ignored-e2e.txt\n');
    writeFileSync(join(folder, 'ignored-e2e.txt'), 'IGNORED-E2E must never be offered\n');
    writeFileSync(join(folder, '.env'), 'SECRET_E2E=sk-never\n');
  });
  after(async () => {
    rmSync(folder, { recursive: true, force: true });
    await fake?.close();
  });

  for (const v of variants) {
    it(`@ opens a keyboard picker; the picked file reaches the model and shows as a chip (${v.name})`, async () => {
      const { page, webviewProblems } = await openWorkbench(v.theme, SETTINGS(fake));
      try {
        const frame = await openHeadroomView(page);
        const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
        await box.waitFor();
        if (v.sidebar) await narrowSidebar(page, v.sidebar);
        await box.focus();
        await page.keyboard.type('Summarize @');
        const list = frame.locator('[data-testid=mention-list]');
        // Right after the @: the editor's sources first, then the workspace's files and folders.
        await list.locator('[role=option]', { hasText: 'hello.ts' }).waitFor({ timeout: 30_000 });
        const first = await list.locator('[role=option]').allTextContents();
        assert.match(first[0], /^⌶selection/);
        assert.match(first[1], /^⚠problems/);
        const selected = () => list.locator('[aria-selected=true]').textContent();
        await page.keyboard.press('ArrowDown');
        assert.match((await selected()) ?? '', /problems/, 'ArrowDown moves to the next entry');
        await page.keyboard.press('ArrowUp');
        assert.match((await selected()) ?? '', /selection/, 'ArrowUp moves back');
        await page.mouse.move(700, 700); // no hover tooltip over the panel
        await page.waitForTimeout(600);
        await page.screenshot({ path: screenshotPath(`mentions-picker-${v.name}`) });
        await page.keyboard.press('Escape');
        await list.waitFor({ state: 'hidden' });
        assert.equal(await box.inputValue(), 'Summarize @', 'Escape closes the list and keeps the text');
        await page.keyboard.type('mention-e2e/');
        const notes = list.locator('[role=option]', { hasText: 'notes-e2e.md' });
        await notes.waitFor({ timeout: 30_000 });
        const offered = await list.locator('[role=option]').allTextContents();
        assert.ok(!offered.some((o) => /ignored-e2e|\.env/.test(o)), `ignored and secret files are not offered: ${offered.join(' | ')}`);
        await page.keyboard.type('notes');
        await list.locator('[role=option]', { hasText: 'selection' }).waitFor({ state: 'detached' });
        await frame.waitForFunction(
          () => document.querySelector('[data-testid=mention-list] [aria-selected=true]')?.textContent?.includes('notes-e2e.md'),
          undefined,
          { timeout: 30_000 },
        );
        // The combobox pattern: expanded, and the active option is the one announced.
        assert.equal(await box.getAttribute('aria-expanded'), 'true');
        const active = await box.getAttribute('aria-activedescendant');
        assert.equal(await list.locator('[aria-selected=true]').getAttribute('id'), active);
        await page.mouse.move(700, 700);
        await page.waitForTimeout(300);
        await noSidewaysSpill(frame, `picker (${v.name})`);
        await page.screenshot({ path: screenshotPath(`mentions-picker-filtered-${v.name}`) });
        await page.keyboard.press('Enter');
        assert.equal(await box.inputValue(), 'Summarize @mention-e2e/notes-e2e.md ');
        assert.equal(await list.isHidden(), true, 'Enter took the entry and closed the list');
        await frame.locator('[data-testid=mention-chips] [data-testid=mention-chip]', { hasText: 'notes-e2e.md' }).waitFor();

        const start = fake.requests.length;
        fake.script.push({ text: `Summarized (${v.name}).` });
        // Typed specials go too: @problems attaches the diagnostics; @selection without a selection is refused, visibly.
        await page.keyboard.type('please, with @problems and @selection ');
        await page.keyboard.press('Enter');
        await answered(frame, `Summarized (${v.name}).`);
        const sent = userContent(fake.requests[start]);
        assert.match(sent, /Summarize @mention-e2e\/notes-e2e.md please, with @problems and @selection/);
        assert.ok(sent.includes(CONTENT), 'the file content went with the prompt');
        assert.match(sent, /<problems count=/);
        assert.match(sent, /\[@selection was not attached: no text is selected in an editor\]/);
        const bubble = frame.locator('.hr-user').last();
        assert.equal(
          (await bubble.locator('.hr-user-text').textContent())?.trim(),
          'Summarize @mention-e2e/notes-e2e.md please, with @problems and @selection',
        );
        const chips = bubble.locator('[data-testid=mention-chip]');
        assert.deepEqual((await chips.allTextContents()).map((t) => t.trim()).sort(), [
          '⌶@selectionnot attached',
          '▤@mention-e2e/notes-e2e.md',
          '⚠@problems',
        ]);
        const chip = bubble.locator('[data-testid=mention-chip]', { hasText: 'notes-e2e.md' });
        assert.equal(await chip.evaluate((el) => el.tagName), 'BUTTON', 'a file chip is a link to the file');
        for (const sel of ['.hr-user .hr-chip-label', '.hr-user .hr-chip-refused .hr-chip-note']) {
          const ratio = await textContrast(frame, sel);
          assert.ok(ratio >= 4.5, `${sel} contrast ${ratio.toFixed(2)}:1 in ${v.name}`);
        }
        await page.mouse.move(700, 700);
        await noSidewaysSpill(frame, `sent mention (${v.name})`);
        await page.screenshot({ path: screenshotPath(`mentions-sent-${v.name}`) });

        // The chip is a link: it opens the file in an editor.
        await chip.click();
        await page.locator('.tab', { hasText: 'notes-e2e.md' }).first().waitFor({ timeout: 30_000 });
        assert.deepEqual(webviewProblems, []);
        await runPaletteCommand(page, 'Headroom: New Session');
        await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
      } finally {
        await page.close();
      }
    });
  }

  it('Add Selection to Headroom (editor context menu and palette) puts the selection in the prompt and sends it', async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern', SETTINGS(fake));
    try {
      const frame = await openHeadroomView(page);
      const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
      await box.waitFor();
      await page.keyboard.press('Control+P');
      await page.locator('.quick-input-widget input').fill('hello.ts');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'hello.ts' }).first().waitFor();
      await page.keyboard.press('Enter');
      const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
      await editor.waitFor();
      await editor.click();
      await page.keyboard.press('Control+A');
      await editor.click({ button: 'right' });
      const item = page.locator('.monaco-menu .action-item', { hasText: 'Add Selection to Headroom' }).first();
      await item.waitFor({ timeout: 15_000 });
      await page.screenshot({ path: screenshotPath('mentions-context-menu') });
      await item.click();
      await frame
        .locator('[data-testid=mention-chips] [data-testid=mention-chip]', { hasText: '@hello.ts:1' })
        .waitFor({ timeout: 30_000 });
      assert.equal((await box.inputValue()).trim(), '@hello.ts:1');
      await page.screenshot({ path: screenshotPath('mentions-add-selection') });

      const start = fake.requests.length;
      fake.script.push({ text: 'It greets.' });
      await box.focus();
      await box.press('End');
      await page.keyboard.type('what does this do?');
      await page.keyboard.press('Enter');
      await answered(frame, 'It greets.');
      const sent = userContent(fake.requests[start]);
      assert.match(sent, /<selection path=\\?"hello\.ts\\?" lines=\\?"1\\?">/);
      assert.match(sent, /export const greeting = \\?"hello\\?";/);
      await frame.locator('.hr-user').last().locator('[data-testid=mention-chip]', { hasText: '@hello.ts:1' }).waitFor();

      // The same command from the palette (the selection is still there in the editor).
      await editor.click();
      await page.keyboard.press('Control+A');
      await runPaletteCommand(page, 'Headroom: Add Selection to Headroom');
      await frame
        .locator('[data-testid=mention-chips] [data-testid=mention-chip]', { hasText: '@hello.ts:1' })
        .waitFor({ timeout: 30_000 });
      assert.equal((await box.inputValue()).trim(), '@hello.ts:1');

      // The panel's webview is re-created when it is hidden: the draft keeps its mention. (The panel
      // saves its state at most every 200 ms, like the draft's text: hidden sooner, the last change is lost.)
      await page.waitForTimeout(500);
      await page.locator('.activitybar [aria-label^="Explorer"]').first().click();
      await page.waitForTimeout(500);
      const again = await openHeadroomView(page);
      assert.ok(frame.isDetached() && again !== frame, 'the webview was re-created');
      const box2 = again.getByRole('textbox', { name: 'Message to Headroom' });
      await again
        .locator('[data-testid=mention-chips] [data-testid=mention-chip]', { hasText: '@hello.ts:1' })
        .waitFor({ timeout: 30_000 });
      const before = fake.requests.length;
      fake.script.push({ text: 'Still greets.' });
      await box2.focus();
      await box2.press('End');
      await page.keyboard.type('once more');
      await page.keyboard.press('Enter');
      await answered(again, 'Still greets.');
      const last = lastUserContent(fake.requests[before]);
      assert.match(last, /once more/);
      assert.match(last, /<selection path=\\?"hello\.ts\\?" lines=\\?"1\\?">/, 'the mention survived the webview being re-created');
      assert.deepEqual(webviewProblems, []);
      await runPaletteCommand(page, 'Headroom: New Session');
      await again.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
    } finally {
      await page.close();
    }
  });

  it('edit-and-resend: Edit on the last prompt (and ↑) replaces that turn; the model no longer sees it', async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern', SETTINGS(fake));
    try {
      const frame = await openHeadroomView(page);
      const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
      await box.waitFor();
      fake.script.push({ text: 'Answer A e2e.' });
      await box.fill('first prompt e2e');
      await box.press('Enter');
      await answered(frame, 'Answer A e2e.');

      // Keyboard: Tab reaches the Edit button of the last prompt.
      const edit = frame.getByRole('button', { name: 'Edit and resend this message' });
      await edit.waitFor();
      assert.equal(await edit.count(), 1, 'only the last prompt offers Edit');
      await edit.focus();
      await page.keyboard.press('Enter');
      assert.equal(await box.inputValue(), 'first prompt e2e');
      await frame.locator('[data-testid=editing]').waitFor();
      await page.mouse.move(700, 700);
      await page.screenshot({ path: screenshotPath('mentions-edit-resend') });

      const start = fake.requests.length;
      fake.script.push({ text: 'Answer B e2e.' });
      await box.fill('second prompt e2e');
      await box.press('Enter');
      await answered(frame, 'Answer B e2e.');
      const body = JSON.stringify(fake.requests[start].body.messages);
      assert.match(body, /second prompt e2e/);
      assert.doesNotMatch(body, /first prompt e2e|Answer A e2e/, 'the replaced turn is not sent');
      assert.equal(await frame.locator('.hr-user', { hasText: 'first prompt e2e' }).count(), 0);
      assert.equal(await frame.locator('.hr-assistant', { hasText: 'Answer A e2e.' }).count(), 0);
      await frame.locator('.hr-user', { hasText: 'second prompt e2e' }).waitFor();
      await page.screenshot({ path: screenshotPath('mentions-edit-resent') });

      // ↑ in the empty box recalls the last prompt; Escape gives up the edit.
      await box.focus();
      await page.keyboard.press('ArrowUp');
      assert.equal(await box.inputValue(), 'second prompt e2e');
      await page.keyboard.press('Escape');
      assert.equal(await box.inputValue(), '');
      await frame.locator('[data-testid=editing]').waitFor({ state: 'hidden' });
      assert.deepEqual(webviewProblems, []);
      await runPaletteCommand(page, 'Headroom: New Session');
      await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
    } finally {
      await page.close();
    }
  });
});
