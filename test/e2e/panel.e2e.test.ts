/// <reference lib="dom" />
import * as assert from 'node:assert/strict';
import { openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath, type Theme } from './workbench';

describe('Headroom in a real VS Code (code-server + Chromium)', () => {
  it('opens the Headroom view and renders the panel from the host snapshot', async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern');
    try {
      const frame = await openHeadroomView(page);
      const status = frame.locator('[data-testid=status]');
      await status.waitFor();
      const text = await status.innerText();
      assert.match(text, /Session\s+New session · 0 messages/);
      assert.match(text, /Provider\s+Anthropic/);
      assert.match(text, /Storage\s+Workspace storage/);
      assert.deepEqual(webviewProblems, [], 'no console errors or CSP violations in the webview');
    } finally {
      await page.close();
    }
  });

  it('round-trips a message: the panel button asks the host, which opens the Headroom log', async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern');
    try {
      const frame = await openHeadroomView(page);
      await frame.getByRole('button', { name: 'Show the Headroom log' }).click();
      const output = page.locator('.part.panel .monaco-editor[data-uri*="Headroom"], .part.panel .monaco-editor').first();
      await output.waitFor({ timeout: 20_000 });
      await page.locator('.part.panel').getByText('Headroom activated', { exact: false }).first().waitFor({ timeout: 20_000 });
      assert.deepEqual(webviewProblems, []);
    } finally {
      await page.close();
    }
  });

  it('runs "Headroom: Show Log" from the command palette', async () => {
    const { page } = await openWorkbench('Default Dark Modern');
    try {
      await openHeadroomView(page);
      await runPaletteCommand(page, 'Headroom: Show Log');
      await page.locator('.part.panel').getByText('Headroom activated', { exact: false }).first().waitFor({ timeout: 20_000 });
    } finally {
      await page.close();
    }
  });

  it('runs "Headroom: Focus Panel" from the command palette', async () => {
    const { page } = await openWorkbench('Default Dark Modern');
    try {
      await page.keyboard.press('Control+Shift+E').catch(() => {});
      await runPaletteCommand(page, 'Headroom: Focus Panel');
      const { headroomFrame } = await import('./workbench');
      const frame = await headroomFrame(page);
      assert.equal(await frame.locator('[data-testid=status]').count(), 1);
    } finally {
      await page.close();
    }
  });

  for (const [theme, name] of [
    ['Default Light Modern', 'panel-light'],
    ['Default Dark Modern', 'panel-dark'],
    ['Default High Contrast', 'panel-high-contrast'],
  ] as Array<[Theme, string]>) {
    it(`looks right in the ${theme} theme (screenshot ${name}.png)`, async () => {
      const { page, webviewProblems } = await openWorkbench(theme);
      try {
        const frame = await openHeadroomView(page);
        await frame.locator('[data-testid=status]').waitFor();
        // The panel must use the theme's colours, not hard-coded ones: its text colour follows the theme.
        const color = await frame.locator('body').evaluate((b) => getComputedStyle(b).color);
        const [r, g, b] = (color.match(/\d+/g) ?? []).map(Number);
        const luminance = (0.299 * r + 0.587 * g + 0.114 * b) / 255;
        if (theme === 'Default Light Modern') assert.ok(luminance < 0.5, `dark text on light theme (${color})`);
        else assert.ok(luminance > 0.5, `light text on dark theme (${color})`);
        await page.mouse.move(700, 600); // no hover tooltip over the panel
        await page.waitForTimeout(300);
        await page.screenshot({ path: screenshotPath(name) });
        assert.deepEqual(webviewProblems, []);
      } finally {
        await page.close();
      }
    });
  }
});
