/// <reference lib="dom" />
/**
 * Error blocks in a real VS Code: a 401 from the fake provider shows one block with its next steps,
 * readable (contrast ≥ 4.5:1, measured from the computed colours) in Dark, Light and High Contrast,
 * and [Retry] runs the failed turn again (the prompt is shown and sent once, however often it failed)
 * and clears the block once the answer works.
 */
import * as assert from 'node:assert/strict';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { textContrast } from './contrast';
import { fakeProviderSettings, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath, type Theme } from './workbench';

/** Polls `done` until it holds (state, not time: a loaded machine only makes it slower). */
async function waitFor(done: () => boolean, what: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('panel error blocks in a real VS Code', function () {
  this.timeout(240_000);
  let fake: FakeProvider;

  before(async () => {
    fake = await startFakeProvider();
  });
  after(async () => {
    await fake?.close();
  });

  const themes: Array<[Theme, string]> = [
    ['Default Dark Modern', 'dark'],
    ['Default Light Modern', 'light'],
    ['Default High Contrast', 'hc'],
  ];
  for (const [theme, name] of themes) {
    it(`shows a 401 once with Set API Key and Retry, readable in ${theme}; Retry clears it (panel-error-${name}.png)`, async () => {
      const { page, webviewProblems } = await openWorkbench(theme, fakeProviderSettings(fake, 32_000, 4_000));
      try {
        const frame = await openHeadroomView(page);
        const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
        await box.waitFor();
        fake.script.push({ fault: 'auth' }, { fault: 'auth' });
        const prompt = `say hello (${name})`;
        await box.fill(prompt);
        await box.press('Enter');
        const block = frame.locator('.hr-notice-error', { hasText: 'The provider did not accept the API key.' });
        await block.waitFor({ timeout: 60_000 });
        await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
        await page.screenshot({ path: screenshotPath(`panel-error-${name}`) });

        // Shown once: one error block, no "broke off" note, no second notice.
        assert.equal(await frame.locator('[data-testid=notice]').count(), 1);
        assert.equal(await frame.locator('.hr-stop-note').count(), 0);
        assert.deepEqual(await block.locator('button').allInnerTexts(), ['Set API Key…', 'Retry']);
        for (const sel of ['.hr-notice-error .hr-notice-title', '.hr-notice-error .hr-notice-text']) {
          const ratio = await textContrast(frame, sel);
          assert.ok(ratio >= 4.5, `${sel} contrast ${ratio.toFixed(2)}:1 in ${theme}`);
        }

        // The second 401: the same block stays, the prompt is not repeated.
        const sent = fake.requests.length;
        await block.getByRole('button', { name: 'Retry' }).click();
        await waitFor(() => fake.requests.length > sent && fake.script.length === 0, 'the retried request');
        await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
        await block.waitFor({ timeout: 30_000 });
        assert.equal(await frame.locator('[data-testid=notice]').count(), 1, 'one block for the failing turn');

        fake.script.push({ text: 'Hello again.' });
        await block.getByRole('button', { name: 'Retry' }).click();
        await frame.locator('.hr-assistant', { hasText: 'Hello again.' }).waitFor({ timeout: 60_000 });
        await block.waitFor({ state: 'detached', timeout: 30_000 });
        assert.equal(await frame.locator('.hr-user', { hasText: prompt }).count(), 1, 'Retry shows the prompt once');
        const last = fake.requests.at(-1)!;
        assert.equal(JSON.stringify(last.body).split(prompt).length - 1, 1, 'the model received the prompt once');
        assert.deepEqual(webviewProblems, []);
        // Leave a fresh session behind: the suites after this one share the workspace and expect one.
        await runPaletteCommand(page, 'Headroom: New Session');
        await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
      } finally {
        await page.close();
      }
    });
  }
});
