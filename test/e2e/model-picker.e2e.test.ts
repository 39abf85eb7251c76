/// <reference lib="dom" />
/**
 * The model picker in the panel header, in a real VS Code: a keyboard-reachable button that names the
 * session's model with its window and price, opens a quick pick of every provider's models (window and
 * price per million tokens), then the thinking level for a model that reasons; the header shows the
 * choice at once. Screenshots: panel-model-picker.png, panel-model-thinking.png, panel-model-header.png.
 */
import * as assert from 'node:assert/strict';
import { openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath } from './workbench';

describe('model picker in the panel header', function () {
  this.timeout(240_000);

  it('opens from the keyboard, lists models with window and price, sets model and thinking level', async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern', {
      'headroom.provider': 'anthropic',
      'headroom.model': 'claude-sonnet-4-5',
      'headroom.thinking': 'off',
    });
    try {
      const frame = await openHeadroomView(page);
      const button = frame.getByRole('button', {
        name: /^Model: claude-sonnet-4-5, 200k window, \$3 \/ \$15 per M tokens\. Select another model$/,
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
      assert.match(listed, /claude-sonnet-4-5[\s\S]*200k window · \$3 in \/ \$15 out per M tokens/);
      assert.match(listed, /Anthropic/);
      // The highlight starts on the session's model, so Enter keeps it.
      assert.match(await page.locator('.quick-input-list .monaco-list-row.focused').innerText(), /claude-sonnet-4-5/);
      await page.screenshot({ path: screenshotPath('panel-model-picker') });

      await page.locator('.quick-input-widget input').fill('claude-opus-4-5');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: '$5 in / $25 out' }).first().waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget', { hasText: 'Thinking Budget for claude-opus-4-5' }).waitFor({ timeout: 20_000 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'thinking tokens, counted in the output' }).first().waitFor();
      await page.screenshot({ path: screenshotPath('panel-model-thinking') });
      await page.locator('.quick-input-widget input').fill('high');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: '24.6k thinking tokens' }).first().waitFor();
      await page.keyboard.press('Enter');

      const chosen = frame.getByRole('button', { name: /^Model: claude-opus-4-5, 200k window, \$5 \/ \$25 per M tokens, thinking high\./ });
      await chosen.waitFor({ timeout: 30_000 });
      assert.match(
        await frame.locator('.hr-model-line').innerText(),
        /claude-opus-4-5 · 200k window · \$5 \/ \$25 per M tokens · thinking high/,
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
});
