/// <reference lib="dom" />
/**
 * The panel's accessibility in Chromium: axe-core (the engine behind Lighthouse's and Playwright's
 * accessibility checks) over each of its states, the number of Tab stops, and arrow-key navigation
 * of the conversation. Driven through the protocol in the harness page (test/e2e/webview-harness.ts).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { chromium, type Browser } from 'playwright-core';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/lib/code-server.mjs';
import { LIGHT_VARS, loadPanel, sessionFixture } from './webview-harness';

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
});

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

async function post(page: Page, ...messages: HostToWebview[]): Promise<void> {
  await page.evaluate((ms) => ms.forEach((data) => window.dispatchEvent(new MessageEvent('message', { data }))), messages);
}

async function panel(messages: number, vars?: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 420, height: 800 } });
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
  await loadPanel(page, undefined, vars);
  const { snapshot, history } = sessionFixture(messages);
  await post(page, snapshot, history);
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe's WCAG 2.x A/AA rules and best practices, plus its experimental "label-content-name-mismatch"
 * (WCAG 2.5.3: a control's accessible name contains its visible label).
 */
async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      rules: {
        'label-content-name-mismatch': { enabled: true },
        // A side panel is not a page: VS Code's view title is its heading.
        'page-has-heading-one': { enabled: false },
      },
    });
    return r.violations;
  });
  return found.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  );
}

const approval: HostToWebview = {
  type: 'chat/ops',
  ops: [
    {
      op: 'append',
      item: {
        kind: 'approval',
        id: 'apr_a',
        toolCallId: 'c_a',
        toolName: 'edit_file',
        state: 'pending',
        request: { kind: 'edit', path: 'notes.md', isNew: true, added: 1, removed: 0 },
      },
    },
  ],
};

/** How many Tab presses it takes to walk once around the panel (every stop visited once). */
async function tabStops(page: Page): Promise<string[]> {
  await page.getByRole('textbox', { name: 'Message to Headroom' }).focus();
  const seen: string[] = [];
  for (let i = 0; i < 400; i++) {
    await page.keyboard.press('Tab');
    const here = await page.evaluate(() => {
      const a = document.activeElement as HTMLElement | null;
      return a
        ? `${a.tagName.toLowerCase()}|${a.getAttribute('data-testid') ?? a.getAttribute('aria-label') ?? a.textContent?.slice(0, 30)}`
        : 'none';
    });
    if (here.includes('composer')) break;
    seen.push(here);
  }
  return seen;
}

describe("the panel's accessibility (axe-core, Tab stops, arrow keys)", () => {
  it('has no axe violations: a session, an approval, the history, dark and light', async () => {
    for (const vars of [undefined, LIGHT_VARS]) {
      const page = await panel(12, vars);
      try {
        assert.deepEqual(await violations(page), [], 'a session of 12 messages');
        await post(page, approval);
        await page
          .getByRole('button', { name: /^Approve/ })
          .first()
          .waitFor();
        assert.deepEqual(await violations(page), [], 'with an approval waiting');
        await page.getByRole('button', { name: 'Session history and snapshots' }).click();
        const asked = (await page.evaluate(() => (window as unknown as { __sent: WebviewToHost[] }).__sent)).at(-1);
        assert.ok(asked?.type === 'request' && asked.method === 'session/list', JSON.stringify(asked));
        const { history } = sessionFixture(0);
        await post(page, {
          type: 'reply',
          id: asked.id,
          result: { history: history.type === 'history/list' ? history.history : undefined },
        });
        await page.locator('[data-testid=history] .hr-row').first().waitFor();
        assert.deepEqual(await violations(page), [], 'the history view');
      } finally {
        await page.close();
      }
    }
  });

  it('has no role="application" and gives the conversation one Tab stop however long it is', async () => {
    const short = await panel(6);
    const long = await panel(60);
    try {
      assert.equal(await long.locator('[role=application]').count(), 0);
      // The same stops for 6 and for 60 messages (the current message's own words differ: m1 or m19).
      const kinds = (stops: string[]) => stops.map((s) => s.replace(/\d+/g, 'N'));
      const few = await tabStops(short);
      const many = await tabStops(long);
      assert.deepEqual(kinds(many), kinds(few), 'the same stops for 6 and for 60 messages');
      assert.ok(many.length <= 20, `${many.length} Tab stops around the panel: ${many.join(', ')}`);
    } finally {
      await short.close();
      await long.close();
    }
  });

  it('moves between messages with the arrow keys, Home and End', async () => {
    const page = await panel(12);
    try {
      const current = () => page.evaluate(() => (document.activeElement as HTMLElement).dataset.item ?? null);
      const items = await page
        .locator('[data-testid=chat] > [data-item]')
        .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.item));
      assert.ok(items.length >= 12);
      await page.getByRole('textbox', { name: 'Message to Headroom' }).focus();
      // Backwards from the prompt box, the conversation is one stop: its newest message.
      for (let i = 0; i < 10 && (await current()) === null; i++) await page.keyboard.press('Shift+Tab');
      assert.equal(await current(), items.at(-1));
      await page.keyboard.press('ArrowUp');
      assert.equal(await current(), items.at(-2));
      await page.keyboard.press('Home');
      assert.equal(await current(), items[0]);
      await page.keyboard.press('ArrowDown');
      assert.equal(await current(), items[1]);
      await page.keyboard.press('End');
      assert.equal(await current(), items.at(-1));
      // The buttons of the current message are reachable with Tab; those of the others are not.
      const tabbable = await page
        .locator('[data-testid=chat] button')
        .evaluateAll((bs) =>
          bs.filter((b) => (b as HTMLElement).tabIndex >= 0).map((b) => b.closest('[data-item]')?.getAttribute('data-item')),
        );
      assert.ok(
        tabbable.every((id) => id === items.at(-1)),
        `only the current message's buttons are Tab stops (${tabbable.join(', ')})`,
      );
    } finally {
      await page.close();
    }
  });
});
