/// <reference lib="dom" />
import * as assert from 'node:assert/strict';
import { sessionFixture } from './webview-harness';
import { headroomFrame, inject, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath, type Theme } from './workbench';

describe('Headroom in a real VS Code (code-server + Chromium)', () => {
  it('opens the Headroom view and renders the panel from the host snapshot', async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern');
    try {
      const frame = await openHeadroomView(page);
      await frame.locator('[data-testid=meter]').waitFor();
      // Before the host's first measurement the meter says so; once the session is measured (at
      // once when it opens) it names the model's window, as formatTokens and formatPercent print them
      // ("4.2k / 1M (<1 %)": a share under half a percent is "<1 %", not "0 %"). Either is a rendered snapshot.
      assert.match(
        await frame.locator('[data-testid=meter-label]').innerText(),
        /^(Context: no request yet|\d+(\.\d+)?[kM]? \/ \d+(\.\d+)?[kM]? \((<1|\d+) %\))$/,
      );
      // Which session a window resumes depends on what earlier specs left in the shared workspace: any
      // count is a rendered snapshot.
      assert.match(await frame.locator('[data-testid=session-line]').innerText(), /· \d+ in context\b/);
      // No API key in this environment: the first-run view, not a dead composer.
      await frame.locator('[data-testid=first-run]').waitFor();
      assert.equal(await frame.getByRole('combobox', { name: 'Provider' }).inputValue(), 'anthropic');
      assert.equal(await frame.getByRole('textbox', { name: 'Message to Headroom' }).isDisabled(), true);
      assert.deepEqual(webviewProblems, [], 'no console errors or CSP violations in the webview');
    } finally {
      await page.close();
    }
  });

  it('round-trips a message: "Set API Key…" in the panel runs the host command, which asks for the provider', async () => {
    const { page, webviewProblems } = await openWorkbench('Default Dark Modern');
    try {
      const frame = await openHeadroomView(page);
      await frame.getByRole('button', { name: 'Set API Key…' }).click();
      await page.locator('.quick-input-widget', { hasText: 'Set API Key' }).waitFor({ timeout: 20_000 });
      await page.keyboard.press('Escape');
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
      const frame = await headroomFrame(page);
      assert.equal(await frame.locator('[data-testid=meter]').count(), 1);
    } finally {
      await page.close();
    }
  });

  for (const [theme, name] of [
    ['Default Light Modern', 'light'],
    ['Default Dark Modern', 'dark'],
    ['Default High Contrast', 'high-contrast'],
  ] as Array<[Theme, string]>) {
    it(`looks right in the ${theme} theme (screenshots panel-${name}.png, panel-chat-${name}.png)`, async () => {
      const { page, webviewProblems } = await openWorkbench(theme);
      try {
        const frame = await openHeadroomView(page);
        await frame.locator('[data-testid=meter]').waitFor();
        // The panel must use the theme's colours, not hard-coded ones: its text colour follows the theme.
        const color = await frame.locator('body').evaluate((b) => getComputedStyle(b).color);
        const [r, g, b] = (color.match(/\d+/g) ?? []).map(Number);
        const luminance = (0.299 * r + 0.587 * g + 0.114 * b) / 255;
        if (theme === 'Default Light Modern') assert.ok(luminance < 0.5, `dark text on light theme (${color})`);
        else assert.ok(luminance > 0.5, `light text on dark theme (${color})`);
        await page.mouse.move(700, 600); // no hover tooltip over the panel
        await page.waitForTimeout(300);
        await page.screenshot({ path: screenshotPath(`panel-${name}`) });
        // A full session (markdown, code, tool cards, meter, an approval) under the real CSP and theme.
        const { snapshot } = sessionFixture(12);
        await inject(frame, snapshot, {
          type: 'chat/ops',
          ops: [
            {
              op: 'append',
              item: {
                kind: 'approval',
                id: 'apr_1',
                toolCallId: 'c9',
                toolName: 'edit_file',
                state: 'pending',
                request: { kind: 'edit', path: 'src/parse.ts', isNew: false, added: 3, removed: 1 },
              },
            },
          ],
        });
        await frame.locator('[data-id="apr_1"]').waitFor();
        await frame.locator('[data-testid=tool-card] summary').first().click();
        await page.mouse.move(700, 600);
        await page.waitForTimeout(300);
        await page.screenshot({ path: screenshotPath(`panel-chat-${name}`) });
        assert.deepEqual(webviewProblems, []);
      } finally {
        await page.close();
      }
    });
  }
});
