/// <reference lib="dom" />
/**
 * The model picker in the panel header, in a real VS Code: a keyboard-reachable button that names the
 * session's model with its window and price, opens a quick pick of every provider's models (window and
 * price per million tokens), then the thinking level as the model takes it; the header shows the
 * choice at once. With a key for a provider that lists its models (a fake that plays Anthropic's
 * Models API), the picker lists the key's models — the retired one left out, the deprecated one
 * saying so — and a model the table does not know shows "window unknown — assumed" until the
 * provider described it; an adaptive model that may turn thinking off is offered efforts, not token
 * budgets. Screenshots: panel-model-picker.png, panel-model-thinking.png, panel-model-header.png,
 * panel-model-key-list.png, panel-model-thinking-adaptive.png, panel-model-provider-window.png.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { TODAYS_LINEUP } from '../fixtures/fake-provider/model-specs';
import { openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath } from './workbench';

/** Picks the row of the open quick pick that shows `text`, by typing it and pressing Enter. */
async function choose(page: Page, typed: string, rowText: string): Promise<void> {
  await page.locator('.quick-input-widget input').fill(typed);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: rowText }).first().waitFor({ timeout: 20_000 });
  await page.keyboard.press('Enter');
}

describe('model picker in the panel header', function () {
  this.timeout(300_000);
  let fake: FakeProvider;
  before(async () => (fake = await startFakeProvider({ lineup: TODAYS_LINEUP, apiKey: 'sk-ant-e2e-models-key' })));
  after(async () => fake?.close());

  it('opens from the keyboard, lists models with window and price, sets model and thinking level', async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern', {
      'headroom.provider': 'anthropic',
      'headroom.model': 'claude-haiku-4-5',
      'headroom.thinking': 'off',
    });
    try {
      const frame = await openHeadroomView(page);
      const button = frame.getByRole('button', {
        name: /^Model: claude-haiku-4-5, 200k window, \$1 \/ \$5 per M tokens\. Select another model$/,
      });
      await button.waitFor({ timeout: 30_000 });

      // Keyboard only: focus the button and press Enter.
      await button.focus();
      await page.keyboard.press('Enter');
      const picker = page.locator('.quick-input-widget', { hasText: 'Headroom: Select Model' });
      await picker.waitFor({ timeout: 20_000 });
      const rows = page.locator('.quick-input-list .monaco-list-row');
      await rows.first().waitFor();
      const listed = (await rows.allInnerTexts()).join('\n');
      assert.match(listed, /claude-haiku-4-5[\s\S]*200k window · \$1 in \/ \$5 out per M tokens/);
      // Today's models, as the provider's list describes them, beside the table's.
      assert.match(listed, /claude-opus-5-5[\s\S]*1M window · \$4 in \/ \$20 out/);
      // The highlight starts on the session's model, so Enter keeps it.
      assert.match(await page.locator('.quick-input-list .monaco-list-row.focused').innerText(), /claude-haiku-4-5/);
      await page.screenshot({ path: screenshotPath('panel-model-picker') });

      await choose(page, 'claude-opus-5-5', '1M window · $4 in / $20 out');
      await page.locator('.quick-input-widget', { hasText: 'Thinking for claude-opus-5-5' }).waitFor({ timeout: 20_000 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Effort high' }).first().waitFor();
      await page.screenshot({ path: screenshotPath('panel-model-thinking') });
      await choose(page, 'high', 'Effort high');

      const chosen = frame.getByRole('button', { name: /^Model: claude-opus-5-5, 1M window, \$4 \/ \$20 per M tokens, thinking high\./ });
      await chosen.waitFor({ timeout: 30_000 });
      assert.match(
        await frame.locator('.hr-model-line').innerText(),
        /claude-opus-5-5 · 1M window · \$4 \/ \$20 per M tokens · thinking high/,
      );
      await frame.locator('.hr-top').screenshot({ path: screenshotPath('panel-model-header') });
      await page.screenshot({ path: screenshotPath('panel-model-chosen') });
      assert.deepEqual(webviewProblems, []);

      // Leave a fresh session on the default for the suites after this one.
      await runPaletteCommand(page, 'Headroom: New Session');
    } finally {
      await page.close();
    }
  });

  it("with a key: the picker lists the key's models from the provider, and the header shows the window the provider reported", async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern', {
      'headroom.provider': 'anthropic',
      'headroom.baseUrl': fake.baseUrl,
      'headroom.model': 'claude-petite-5',
      'headroom.thinking': 'off',
    });
    try {
      const frame = await openHeadroomView(page);
      // A model the built-in table does not know, and no key yet: the header says the window is only assumed.
      await frame
        .getByRole('button', { name: /^Model: claude-petite-5, window unknown — assumed 128k\. Select another model$/ })
        .waitFor({ timeout: 30_000 });

      // The key is entered for the fake's origin (the base URL), so it is sent there without asking.
      await runPaletteCommand(page, 'Headroom: Set API Key');
      await choose(page, 'Anthropic', 'Anthropic');
      // The key is bound to one server before it is typed: here the configured base URL (the fake).
      await page.locator('.quick-input-widget', { hasText: 'which server may receive' }).waitFor({ timeout: 20_000 });
      await choose(page, '127.0.0.1', 'a proxy or gateway you configured');
      await page.locator('.quick-input-widget', { hasText: 'Anthropic API key' }).waitFor({ timeout: 20_000 });
      await page.locator('.quick-input-widget input').fill('sk-ant-e2e-models-key');
      await page.keyboard.press('Enter');

      await frame.getByRole('button', { name: /^Model: claude-petite-5/ }).click();
      await page.locator('.quick-input-widget', { hasText: 'Headroom: Select Model' }).waitFor({ timeout: 30_000 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'claude-petite-5' }).first().waitFor({ timeout: 30_000 });
      await page.locator('.quick-input-widget input').fill('claude');
      await page.waitForTimeout(300);
      const listed = (await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).join('\n');
      assert.match(listed, /claude-petite-5[\s\S]*32k window · price unknown · adaptive thinking/);
      assert.match(listed, /claude-sonnet-4-5[\s\S]*deprecated, retires 2026-11-30/);
      assert.doesNotMatch(listed, /claude-opus-4-1/, 'a retired model is not offered');
      assert.doesNotMatch(listed, /claude-3-opus|claude-fable-5-2/, "only the key's models: none of the table's others");
      await page.screenshot({ path: screenshotPath('panel-model-key-list') });

      await choose(page, 'claude-petite-5', '32k window');
      await page.locator('.quick-input-widget', { hasText: 'Thinking for claude-petite-5' }).waitFor({ timeout: 20_000 });
      // Adaptive, and it may turn thinking off: off and three efforts, never token budgets.
      const thinkingRows = page.locator('.quick-input-list .monaco-list-row');
      await thinkingRows.filter({ hasText: 'Effort high' }).first().waitFor({ timeout: 20_000 });
      const offered = (await thinkingRows.allInnerTexts()).join('\n');
      assert.match(offered, /off[\s\S]*No thinking[\s\S]*Effort low[\s\S]*Effort medium[\s\S]*Effort high/);
      assert.doesNotMatch(offered, /thinking tokens/);
      await page.screenshot({ path: screenshotPath('panel-model-thinking-adaptive') });
      await choose(page, 'medium', 'Effort medium');
      const header = frame.getByRole('button', { name: /^Model: claude-petite-5, 32k window, thinking medium\. Select another model$/ });
      await header.waitFor({ timeout: 30_000 });
      // Where the window comes from is in the meter's Details.
      await frame
        .locator('[data-testid=meter-window-source]', { hasText: 'window reported by the provider' })
        .waitFor({ state: 'attached', timeout: 30_000 });
      await frame.locator('[data-testid=meter-details] summary').click();
      await frame.locator('[data-testid=meter-window-source]').waitFor();
      await page.screenshot({ path: screenshotPath('panel-model-provider-window') });
      await frame.locator('[data-testid=meter-details] summary').click();
      assert.deepEqual(webviewProblems, []);
      await runPaletteCommand(page, 'Headroom: New Session');
      // The suites after this one expect no stored Anthropic key: an empty key removes it.
      await runPaletteCommand(page, 'Headroom: Set API Key');
      await choose(page, 'Anthropic', 'Anthropic');
      // The key is bound to one server before it is typed: here the configured base URL (the fake).
      await page.locator('.quick-input-widget', { hasText: 'which server may receive' }).waitFor({ timeout: 20_000 });
      await choose(page, '127.0.0.1', 'a proxy or gateway you configured');
      await page.locator('.quick-input-widget', { hasText: 'Anthropic API key' }).waitFor({ timeout: 20_000 });
      await page.locator('.quick-input-widget input').fill('');
      await page.keyboard.press('Enter');
    } finally {
      await page.close();
    }
  });
});
