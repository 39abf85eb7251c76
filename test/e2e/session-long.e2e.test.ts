/// <reference lib="dom" />
/**
 * A long session in a real VS Code (code-server + Chromium, the fake provider): one turn of 60 model
 * requests with 10 tool calls each makes a 662-message session; a new window resumes it and the panel
 * shows only its newest page, then pages older history in as the user scrolls up (the requests go to
 * the real host), keeping the message the user sees in place, down to "Beginning of session".
 * Screenshots in Dark Modern, Light Modern and High Contrast.
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { startFakeProvider, type FakeProvider, type FakeStep } from '../fixtures/fake-provider';
import { e2e } from './setup';
import { fakeProviderSettings, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath, type Theme } from './workbench';

const STEPS = 60;
const CALLS = 10;
/** The prompt, 60 × (an assistant message and its 10 results), the final answer. */
const TOTAL = 1 + STEPS * (1 + CALLS) + 1;

let fake: FakeProvider;
let settings: Record<string, unknown>;

const items = (frame: Frame) => frame.locator('[data-testid=chat] > [data-id]');
const olderState = (frame: Frame) => frame.locator('[data-testid=older]').getAttribute('data-state');
const toTop = (frame: Frame) =>
  frame.locator('[data-testid=chat]').evaluate((e) => {
    e.scrollTop = 0;
  });

/**
 * A new window on the workspace: Headroom resumes the newest session (the long one). The closed
 * window's extension host lives on in code-server (its reconnection grace time); being idle, it hands
 * the store to this window, which resumes the long session writable, not read-only.
 */
async function reopen(theme: Theme): Promise<{ page: Page; frame: Frame; problems: string[] }> {
  const { page, webviewProblems } = await openWorkbench(theme, settings);
  const frame = await openHeadroomView(page);
  await frame.locator('[data-testid=session-counts]', { hasText: `${TOTAL} in context` }).waitFor({ timeout: 45_000 });
  assert.equal(await frame.locator('[data-testid=storage-note]').count(), 0, 'the window saves: it is not read-only');
  await frame.locator('.hr-assistant', { hasText: 'Read them all.' }).waitFor({ timeout: 30_000 });
  // The resumed session's snapshot may follow the first one the panel got: let it arrive.
  await frame.waitForTimeout(1_500);
  return { page, frame, problems: webviewProblems };
}

/**
 * Scrolls to the top until nothing is older; returns how many pages came in. It keeps scrolling up
 * while it waits, as a reader would: a snapshot arriving meanwhile (the window's start-up sends one
 * when the session is resumed) puts the list back at the bottom.
 */
async function pageToBeginning(frame: Frame): Promise<number> {
  let pages = 0;
  for (let k = 0; k < 20 && (await olderState(frame)) !== 'start'; k++) {
    const n = await items(frame).count();
    await frame.waitForFunction(
      (before) => {
        const chat = document.querySelector('[data-testid=chat]')!;
        chat.scrollTop = 0;
        return (
          document.querySelectorAll('[data-testid=chat] > [data-id]').length > before ||
          document.querySelector('[data-testid=older]')?.getAttribute('data-state') === 'start'
        );
      },
      n,
      { timeout: 15_000, polling: 250 },
    );
    pages++;
  }
  return pages;
}

describe('a long session in a real VS Code, a page at a time', function () {
  this.timeout(300_000);

  before(async () => {
    fake = await startFakeProvider();
    writeFileSync(join(e2e().workspace, 'paging.txt'), 'one line to read\n');
    settings = { ...fakeProviderSettings(fake, 200_000, 4_000), 'headroom.maxIterations': 100 };
  });
  after(async () => {
    await fake?.close();
  });

  it(`builds a ${TOTAL}-message session, reopens it with only the newest page, and pages back to the beginning in place`, async () => {
    const first = await openWorkbench('Default Dark Modern', settings);
    try {
      const frame = await openHeadroomView(first.page);
      await runPaletteCommand(first.page, 'Headroom: New Session');
      await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
      const steps: FakeStep[] = Array.from({ length: STEPS }, (_, s) => ({
        toolCalls: Array.from({ length: CALLS }, (_, k) => ({
          id: `call_p${s}_${k}`,
          name: 'read_file',
          arguments: { path: 'paging.txt' },
        })),
      }));
      fake.script.push(...steps, { text: 'Read them all.' });
      const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
      await box.fill('read paging.txt sixty times');
      await box.press('Enter');
      await frame.locator('.hr-assistant', { hasText: 'Read them all.' }).waitFor({ timeout: 180_000 });
      await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
      await frame.locator('[data-testid=session-counts]', { hasText: `${TOTAL} in context` }).waitFor({ timeout: 30_000 });
    } finally {
      await first.page.close();
    }

    const { page, frame, problems } = await reopen('Default Dark Modern');
    try {
      // Only the newest page: the last answer is there, the prompt and the first calls are not.
      const shown = await items(frame).count();
      assert.ok(shown > 20 && shown < 200, `${shown} items rendered for ${TOTAL} messages`);
      await frame.locator('.hr-assistant', { hasText: 'Read them all.' }).waitFor();
      assert.equal(await frame.locator('.hr-user', { hasText: 'read paging.txt sixty times' }).count(), 0);
      // Tool cards are keyed by the panel, not by call id (servers reuse ids): only the newest page's are here.
      const cardsShown = await frame.locator('[data-testid=chat] [data-testid=tool-card]').count();
      assert.ok(cardsShown < STEPS * CALLS, `${cardsShown} tool cards on the newest page`);
      assert.equal(await olderState(frame), 'more');

      // Scrolling to the top asks the host for the page before; the item on screen stays put.
      const top = await items(frame).first().getAttribute('data-id');
      assert.ok(top);
      const offset = () =>
        frame.evaluate((id) => {
          const chat = document.querySelector('[data-testid=chat]')!;
          return document.querySelector(`[data-id="${id}"]`)!.getBoundingClientRect().top - chat.getBoundingClientRect().top;
        }, top);
      await toTop(frame);
      const before = await offset();
      await frame.waitForFunction((n) => document.querySelectorAll('[data-testid=chat] > [data-id]').length > n, shown, {
        timeout: 15_000,
      });
      await frame.waitForTimeout(200);
      const moved = Math.abs((await offset()) - before);
      assert.ok(moved <= 2, `the item at the top stayed in place (moved ${moved} px)`);
      assert.ok((await frame.locator('[data-testid=chat]').evaluate((e) => e.scrollTop)) > 300, 'no jump to the new top');
      await page.screenshot({ path: screenshotPath('session-long-paged-dark') });

      // Down to the beginning: the prompt, the first tool card with its result, and the word for it.
      const pages = await pageToBeginning(frame);
      assert.ok(pages >= 2, `${pages} more pages`);
      await toTop(frame);
      await frame.locator('[data-testid=older]', { hasText: 'Beginning of session' }).waitFor();
      await frame.locator('.hr-user', { hasText: 'read paging.txt sixty times' }).waitFor();
      const card = frame.locator('[data-testid=chat] [data-testid=tool-card]').first();
      assert.match((await card.textContent()) ?? '', /read_file[\s\S]*paging\.txt[\s\S]*done/);
      assert.equal(await frame.locator('[data-testid=chat] [data-testid=tool-card]').count(), STEPS * CALLS, 'every tool card once');
      await page.screenshot({ path: screenshotPath('session-long-beginning-dark') });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  for (const [theme, name] of [
    ['Default Light Modern', 'light'],
    ['Default High Contrast', 'hc'],
  ] as Array<[Theme, string]>) {
    it(`pages back to "Beginning of session" in ${theme} (session-long-beginning-${name}.png)`, async () => {
      const { page, frame, problems } = await reopen(theme);
      try {
        assert.equal(await olderState(frame), 'more');
        await pageToBeginning(frame);
        await toTop(frame);
        await frame.locator('[data-testid=older]', { hasText: 'Beginning of session' }).waitFor();
        await page.screenshot({ path: screenshotPath(`session-long-beginning-${name}`) });
        assert.deepEqual(problems, []);
        if (name === 'hc') {
          // Leave a fresh session behind: the suites after this one share the workspace.
          await runPaletteCommand(page, 'Headroom: New Session');
          await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
        }
      } finally {
        await page.close();
      }
    });
  }
});
