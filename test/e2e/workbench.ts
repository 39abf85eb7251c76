/** Page-level helpers for driving VS Code (code-server) and Headroom's webview with playwright. */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { HostToWebview } from '../../src/protocol/messages';
import { writeUserSettings } from '../../scripts/lib/code-server.mjs';
import { e2e, RESULTS } from './setup';

export type Theme = 'Default Dark Modern' | 'Default Light Modern' | 'Default High Contrast';

export interface OpenedWorkbench {
  page: Page;
  /** Console errors and CSP violations seen in Headroom's webview frames. */
  webviewProblems: string[];
}

/**
 * Opens the workbench in a fresh page with the given colour theme (and any other user settings, e.g.
 * `headroom.*` pointing at the fake provider) and waits for it to load.
 */
export async function openWorkbench(
  theme: Theme = 'Default Dark Modern',
  settings: Record<string, unknown> = {},
): Promise<OpenedWorkbench> {
  const { server, browser, userDataDir } = e2e();
  writeUserSettings(userDataDir, { 'workbench.colorTheme': theme, ...settings });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const webviewProblems: string[] = [];
  page.on('console', (msg) => {
    const text = msg.text();
    const fromWebview = /vscode-webview|webview\.js|headroom/i.test(msg.location().url ?? '');
    if (/Content Security Policy|Refused to (load|execute|apply)/i.test(text)) webviewProblems.push(`CSP: ${text}`);
    else if (msg.type() === 'error' && fromWebview) webviewProblems.push(`console: ${text}`);
  });
  page.on('pageerror', (err) => {
    if (/headroom|webview\.js/i.test(err.stack ?? '')) webviewProblems.push(`pageerror: ${err.message}`);
  });
  // Only the request's commit is awaited: the workbench selector below waits for the page itself (a loaded machine takes longer than goto's 30 s to fire "load").
  await page.goto(server.folderUrl, { waitUntil: 'commit', timeout: 90_000 });
  await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  return { page, webviewProblems };
}

/**
 * User settings that point Headroom at the fake provider's OpenAI-compatible endpoint, with `fake-model`
 * given a window of `contextWindow` tokens.
 */
export function fakeProviderSettings(fake: { openaiBaseUrl: string }, contextWindow: number, maxOutput: number): Record<string, unknown> {
  return {
    'headroom.provider': 'openai-compatible',
    'headroom.baseUrl': fake.openaiBaseUrl,
    'headroom.model': 'fake-model',
    'headroom.models': { 'fake-model': { contextWindow, maxOutput } },
  };
}

/** Clicks the Headroom activity-bar item and returns the frame that holds the panel's document. */
export async function openHeadroomView(page: Page): Promise<Frame> {
  const item = page.locator('.activitybar [aria-label^="Headroom"]').first();
  await item.waitFor({ timeout: 60_000 });
  const checked = await item.getAttribute('aria-checked').catch(() => null);
  const expanded = await item.getAttribute('aria-expanded').catch(() => null);
  if (checked !== 'true' && expanded !== 'true') await item.click();
  return headroomFrame(page);
}

/** Waits for the frame that contains Headroom's #app with a rendered snapshot. */
export async function headroomFrame(page: Page, timeoutMs = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const f of page.frames()) {
      try {
        if (await f.locator('body[data-ready="true"] #app').count()) return f;
      } catch {
        // frame navigated away; keep looking
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error('Headroom webview did not render within the timeout');
}

/**
 * Runs a command through the real command palette (F1), by its title. Retries while the workbench is
 * still registering extension contributions (the palette lists them only once the host has scanned).
 */
export async function runPaletteCommand(page: Page, title: string, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  for (;;) {
    await page.keyboard.press('F1');
    try {
      // The palette can close again before it is typed in (focus taken back by a webview that just
      // re-rendered): retry rather than wait out the whole test's timeout on an input that is gone.
      await input.waitFor({ timeout: 15_000 });
      await input.fill(`>${title}`, { timeout: 10_000 });
      await row.waitFor({ timeout: 3_000 });
      break;
    } catch (err) {
      await page.keyboard.press('Escape');
      if (Date.now() > deadline) {
        await page.screenshot({ path: screenshotPath(`failure-palette-${title.replace(/\W+/g, '-')}`) }).catch(() => {});
        throw err;
      }
      await page.waitForTimeout(1_000);
    }
  }
  await page.keyboard.press('Enter');
}

/** Posts host-shaped messages inside the real webview (its CSP and theme apply; the host is bypassed). */
export async function inject(frame: Frame, ...messages: HostToWebview[]): Promise<void> {
  await frame.evaluate((ms) => ms.forEach((data) => window.dispatchEvent(new MessageEvent('message', { data }))), messages);
}

export function screenshotPath(name: string): string {
  return join(RESULTS, `${name}.png`);
}

/** Narrows the primary side bar to `width` px by dragging its sash, as a user would. */
export async function narrowSidebar(page: Page, width: number): Promise<void> {
  const sidebar = page.locator('.part.sidebar');
  for (let attempt = 0; attempt < 4; attempt++) {
    const box = await sidebar.boundingBox();
    assert.ok(box, 'the side bar is shown');
    if (Math.abs(box.width - width) <= 2) return;
    // The sash on the side bar's right edge (the grid's vertical sash whose centre is on that edge).
    const right = box.x + box.width;
    const sashes = await page
      .locator('.monaco-sash.vertical')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x + r.width / 2, y: r.y, h: r.height })));
    const sash = sashes.find((r) => Math.abs(r.x - right) <= 4 && r.h > 100);
    assert.ok(sash, `a sash on the side bar's edge at x=${right}`);
    const y = sash.y + sash.h / 2;
    await page.mouse.move(sash.x, y);
    await page.waitForTimeout(150);
    await page.mouse.down();
    await page.mouse.move(sash.x + (width - box.width), y, { steps: 8 });
    await page.mouse.up();
    await page.waitForTimeout(200);
  }
  const box = await sidebar.boundingBox();
  assert.ok(box && Math.abs(box.width - width) <= 2, `side bar is ${box?.width} px wide, wanted ${width}`);
}

/** Nothing in the panel is wider than the panel (a table scrolls inside its own box instead). */
export async function assertNoSidewaysSpill(frame: Frame, state: string): Promise<void> {
  const spill = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(spill <= 1, `${state}: the panel scrolls sideways by ${spill} px`);
}
