/// <reference lib="dom" />
/**
 * A long session in the panel, a page at a time: the built bundle in a harness page (Chromium) with
 * Headroom's own presenter as the host (the test relays `transcript/older` to it and its answers
 * back), so what the panel gets is what the extension would send. Screenshots of "Loading earlier
 * messages…" and "Beginning of session" in Dark, Light and High Contrast colours and at 320 px.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/lib/code-server.mjs';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { messagesToItems } from '../../src/panel/transcript-items';
import { REQUESTS, type HostToWebview, type WebviewToHost } from '../../src/protocol/messages';
import { screenshotPath } from './workbench';
import { LIGHT_VARS, loadPanel, sessionFixture, sessionMessages } from './webview-harness';

/** High Contrast's values for the variables the chat and its top line use. */
const HC_VARS = `
  --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace;
  --vscode-foreground: #ffffff; --vscode-descriptionForeground: #ffffff; --vscode-sideBar-background: #000000;
  --vscode-panel-border: #6fc3df; --vscode-contrastBorder: #6fc3df; --vscode-button-background: #000000;
  --vscode-button-foreground: #ffffff; --vscode-button-border: #6fc3df; --vscode-input-background: #000000;
  --vscode-input-foreground: #ffffff; --vscode-input-border: #6fc3df; --vscode-focusBorder: #f38518;
  --vscode-textLink-foreground: #21a6ff; --vscode-textLink-activeForeground: #21a6ff; --vscode-textCodeBlock-background: #000000;
  --vscode-charts-blue: #3794ff; --vscode-charts-red: #f14c4c; --vscode-charts-yellow: #cca700; --vscode-charts-green: #89d185;
  --vscode-editorWarning-foreground: #ffd370; --vscode-errorForeground: #f48771;
`;

const MESSAGES = 650;
type Win = { __sent: WebviewToHost[] };

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
});

async function post(page: Page, ...messages: HostToWebview[]): Promise<void> {
  await page.evaluate((ms) => ms.forEach((data) => window.dispatchEvent(new MessageEvent('message', { data }))), messages);
}

/** The panel with a 650-message session loaded by the presenter, and a relay that answers its page requests. */
async function pagedPanel(width: number, vars?: string) {
  const page = await browser.newPage({ viewport: { width, height: 700 } });
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
  await loadPanel(page, undefined, vars);
  const host = new ChatPresenter(() => {});
  const messages = sessionMessages(MESSAGES);
  host.load(messages);
  const base = sessionFixture(MESSAGES).snapshot;
  assert.ok(base.type === 'session/snapshot');
  await post(page, { type: 'session/snapshot', snapshot: { ...base.snapshot, ...host.view() } });
  await page.locator('body[data-ready="true"]').waitFor();
  let answered = 0;
  /** Waits for the panel's next `transcript/older` request and answers it the way the extension does: a reply of its id. */
  const answerNext = async () => {
    const isOlder = (m: WebviewToHost) => m.type === 'request' && m.method === 'transcript/older';
    await page.waitForFunction(
      (n) => (window as unknown as Win).__sent.filter((m) => m.type === 'request' && m.method === 'transcript/older').length > n,
      answered,
      { timeout: 5_000 },
    );
    const asks = (await page.evaluate(() => (window as unknown as Win).__sent)).filter(isOlder);
    const ask = asks[answered++];
    assert.ok(ask?.type === 'request' && ask.method === 'transcript/older');
    const { beforeId } = REQUESTS['transcript/older'][0].parse(ask.params);
    await post(page, { type: 'reply', id: ask.id, result: await host.olderPage(beforeId) });
  };
  return { page, host, all: messagesToItems(messages), answerNext, chat: page.locator('[data-testid=chat]') };
}

const shownIds = (page: Page) =>
  page.locator('[data-testid=chat] > [data-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));

describe('panel paging: a long session a page at a time (harness, Chromium)', function () {
  this.timeout(120_000);

  it('renders only the newest page; scrolling to the top loads the page before it without moving what the user reads', async () => {
    const { page, all, answerNext, chat } = await pagedPanel(420);
    try {
      const first = await shownIds(page);
      assert.ok(first.length > 20 && first.length < all.length / 3, `${first.length} of ${all.length} items rendered on open`);
      assert.deepEqual(
        first,
        all.slice(-first.length).map((i) => i.id),
        'the newest items, in order',
      );
      assert.equal(await page.locator('[data-testid=older]').getAttribute('data-state'), 'more');
      // The user scrolls to the top: the panel asks for the page before the first item shown.
      const top = first[0];
      const offset = () =>
        page.evaluate((id) => {
          const chatEl = document.querySelector('[data-testid=chat]')!;
          return document.querySelector(`[data-id="${id}"]`)!.getBoundingClientRect().top - chatEl.getBoundingClientRect().top;
        }, top);
      await chat.evaluate((e) => {
        e.scrollTop = 0;
      });
      await page.locator('[data-testid=older][data-state=loading]').waitFor({ timeout: 5_000 });
      const before = await offset();
      await page.screenshot({ path: screenshotPath('panel-paging-loading-dark') });
      await answerNext();
      const after = await page.locator('[data-testid=chat] > [data-id]').count();
      assert.ok(after > first.length, 'the older page is in');
      const ids = await shownIds(page);
      assert.deepEqual(
        ids,
        all.slice(-ids.length).map((i) => i.id),
        'prepended in order, joined exactly',
      );
      assert.ok(Math.abs((await offset()) - before) <= 2, `the item the user saw stayed in place (${before} → ${await offset()})`);
      assert.ok((await chat.evaluate((e) => e.scrollTop)) > 500, 'the list did not jump to the new top');
      // Keyboard: the button above the first item asks for more (when the observer has not already).
      await page.locator('[data-testid=older][data-state=more]').waitFor();
      await page.getByRole('button', { name: 'Load earlier messages of this session' }).focus();
      await page.keyboard.press('Enter');
      await answerNext();
      // On to the beginning: every item once, and the top says so.
      for (let k = 0; k < 10 && (await page.locator('[data-testid=older]').getAttribute('data-state')) !== 'start'; k++) {
        await chat.evaluate((e) => {
          e.scrollTop = 0;
        });
        await answerNext();
      }
      assert.deepEqual(
        await shownIds(page),
        all.map((i) => i.id),
      );
      await page.locator('[data-testid=older]', { hasText: 'Beginning of session' }).waitFor();
      await chat.evaluate((e) => {
        e.scrollTop = 0;
      });
      await page.screenshot({ path: screenshotPath('panel-paging-beginning-dark') });
    } finally {
      await page.close();
    }
  });

  const looks: Array<[string, number, string | undefined]> = [
    ['light', 420, LIGHT_VARS],
    ['hc', 420, HC_VARS],
    ['320', 320, undefined],
  ];
  for (const [name, width, vars] of looks) {
    it(`shows "Loading earlier messages…" and "Beginning of session" readably (${name})`, async () => {
      const { page, answerNext, chat } = await pagedPanel(width, vars);
      try {
        await chat.evaluate((e) => {
          e.scrollTop = 0;
        });
        const loading = page.locator('[data-testid=older]', { hasText: 'Loading earlier messages…' });
        await loading.waitFor({ timeout: 5_000 });
        const box = await loading.boundingBox();
        assert.ok(box && box.width <= width && box.height > 10, 'the status line is on screen');
        await page.screenshot({ path: screenshotPath(`panel-paging-loading-${name}`) });
        for (let k = 0; k < 10 && (await page.locator('[data-testid=older]').getAttribute('data-state')) !== 'start'; k++) {
          if (k)
            await chat.evaluate((e) => {
              e.scrollTop = 0;
            });
          await answerNext();
        }
        await chat.evaluate((e) => {
          e.scrollTop = 0;
        });
        await page.locator('[data-testid=older]', { hasText: 'Beginning of session' }).waitFor();
        await page.screenshot({ path: screenshotPath(`panel-paging-beginning-${name}`) });
      } finally {
        await page.close();
      }
    });
  }
});
