/// <reference lib="dom" />
/**
 * Image input, Test connection and example prompts in a real VS Code (code-server + Chromium), with
 * the fake provider: two pasted images show as chips and reach the server as image
 * parts of the user message (a dropped one in the harness: VS Code's drag overlay needs Shift held); Test connection says who answered, and what failed at
 * which URL once the base URL points nowhere; an example prompt fills the box. Dark, Light and High
 * Contrast; then the 320 px panel and a model that takes no images in the harness.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { Frame } from 'playwright-core';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/lib/code-server.mjs';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { makeNoisePng, makePng } from '../fixtures/images/make-png';
import { loadPanel, sessionFixture } from './webview-harness';
import { fakeProviderSettings, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath, type Theme } from './workbench';

const PASTED = makePng(480, 320);
const DROPPED = makePng(200, 200, [180, 60, 60], [250, 250, 250]);

/** Pastes (or drops) a PNG into the composer as the browser would deliver a file. */
async function deliver(frame: Frame, how: 'paste' | 'drop', png: Buffer, name: string): Promise<void> {
  await frame.evaluate(
    ([how, b64, name]) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'image/png' }));
      const box = document.querySelector('[data-testid=composer]')!;
      if (how === 'paste') box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      else {
        box.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    },
    [how, png.toString('base64'), name] as const,
  );
}

async function closedPortUrl(): Promise<string> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}/v1`;
}

describe('image input, Test connection and example prompts in a real VS Code', function () {
  this.timeout(300_000);
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
    it(`empty state, Test connection, an example prompt, two pasted images sent to the server (${name})`, async () => {
      const settings = fakeProviderSettings(fake, 32_000, 4_000);
      const { page, webviewProblems } = await openWorkbench(theme, settings);
      try {
        const frame = await openHeadroomView(page);
        const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
        await box.waitFor();

        // The empty state: example prompts and Test connection.
        const examples = frame.locator('[data-testid=example]');
        await examples.first().waitFor({ timeout: 30_000 });
        assert.ok((await examples.count()) >= 3);
        const test = frame.locator('[data-testid=test-connection]');
        await test.click();
        const result = frame.locator('[data-testid=test-result][data-ok]');
        await result.waitFor({ timeout: 60_000 });
        assert.equal(await result.getAttribute('data-ok'), 'true');
        assert.equal(await result.textContent(), `✓ Connected: fake-model answered at ${fake.openaiBaseUrl}.`);
        assert.equal(fake.requests.at(-1)!.body.max_tokens ?? fake.requests.at(-1)!.body.max_completion_tokens, 16);
        await page.screenshot({ path: screenshotPath(`panel-empty-state-${name}`) });

        // An example prompt, taken with the keyboard, fills the box and focuses it.
        await examples.first().focus();
        await examples.first().press('Enter');
        assert.equal(await box.inputValue(), "Explain this workspace's structure");
        await frame.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer');

        // A pasted and a dropped image: two chips with their size and cost; one removed and put back.
        await deliver(frame, 'paste', PASTED, 'screenshot.png');
        // A drop inside VS Code's webview also tells the workbench, whose drag overlay then covers the
        // panel: a real drop needs Shift held. Drops are driven in the harness below; here, two pastes.
        await deliver(frame, 'paste', DROPPED, 'square.png');
        const chips = frame.locator('[data-testid=attachment]');
        await chips.nth(1).waitFor();
        assert.deepEqual(await chips.locator('.hr-attachment-meta > span:first-child').allTextContents(), [
          'PNG · 480×320',
          'PNG · 200×200',
        ]);
        const costs = await chips.locator('.hr-attachment-meta > span:last-child').allTextContents();
        assert.match(costs[0], /B · ~205 tokens$/, '480×320 / 750');
        assert.match(costs[1], /B · ~85 tokens$/, 'the least an image costs');
        await page.screenshot({ path: screenshotPath(`panel-image-chips-${name}`) });
        await frame.getByRole('button', { name: 'Remove image 2' }).click();
        await chips.nth(1).waitFor({ state: 'detached' });
        await deliver(frame, 'paste', DROPPED, 'square.png');
        await chips.nth(1).waitFor();

        await box.fill('What is in these pictures?');
        await box.press('Enter');
        await frame.locator('.hr-assistant', { hasText: 'echo: What is in these pictures?' }).waitFor({ timeout: 60_000 });
        const rec = fake.requests.at(-1)!;
        assert.deepEqual(rec.images, [
          { mediaType: 'image/png', bytes: PASTED.length },
          { mediaType: 'image/png', bytes: DROPPED.length },
        ]);
        const user = (rec.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user').at(-1)!;
        assert.deepEqual(
          (user.content as Array<{ type: string }>).map((p) => p.type),
          ['image_url', 'image_url', 'text'],
        );
        assert.equal(await chips.count(), 0, 'the chips went with the prompt');
        const bubble = frame.locator('.hr-user', { hasText: 'What is in these pictures?' });
        assert.equal(await bubble.locator('img.hr-user-image').count(), 2);
        await page.screenshot({ path: screenshotPath(`panel-image-sent-${name}`) });

        // Test connection against a base URL where nothing listens: what failed, where, what to do.
        await runPaletteCommand(page, 'Headroom: New Session');
        await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
        const nowhere = await closedPortUrl();
        const { writeUserSettings } = await import('../../scripts/lib/code-server.mjs');
        const { e2e } = await import('./setup');
        writeUserSettings(e2e().userDataDir, { 'workbench.colorTheme': theme, ...settings, 'headroom.baseUrl': nowhere });
        await frame.locator('[data-testid=test-connection]').waitFor();
        // The settings reach the panel as a new snapshot; test until the failure names the new URL.
        const failed = frame.locator('[data-testid=test-result][data-ok=false]', { hasText: nowhere });
        for (let i = 0; i < 20 && !(await failed.count()); i++) {
          await frame.locator('[data-testid=test-connection]:not([disabled])').click();
          // A result, or a new snapshot (the settings arrived) that dropped the answer about the old ones.
          await frame.waitForFunction(
            () =>
              !!document.querySelector('[data-testid=test-result][data-ok]') ||
              !document.querySelector('[data-testid=test-connection][disabled]'),
            undefined,
            { timeout: 30_000 },
          );
          if (!(await failed.count())) await page.waitForTimeout(500);
        }
        assert.equal(
          await failed.textContent(),
          `✗ Could not reach ${nowhere}. Check that the server is running and that the base URL is right (for Ollama: http://localhost:11434/v1).`,
        );
        await page.screenshot({ path: screenshotPath(`panel-test-failed-${name}`) });

        // The first-run view (Anthropic, no key anywhere): Test connection says what is missing and how to fix it.
        if (!process.env.ANTHROPIC_API_KEY) {
          writeUserSettings(e2e().userDataDir, {
            'workbench.colorTheme': theme,
            'headroom.provider': 'anthropic',
            'headroom.baseUrl': fake.baseUrl,
            'headroom.model': 'claude-sonnet-4-5',
          });
          await frame.locator('[data-testid=first-run]').waitFor({ timeout: 30_000 });
          await frame.locator('[data-testid=first-run] [data-testid=test-connection]').click();
          const missing = frame.locator('[data-testid=first-run] [data-testid=test-result][data-ok=false]');
          await missing.waitFor({ timeout: 30_000 });
          assert.equal(await missing.textContent(), '✗ No Anthropic API key is set: use Set API Key… to set one.');
          await page.screenshot({ path: screenshotPath(`panel-first-run-test-${name}`) });
        }
        writeUserSettings(e2e().userDataDir, { 'workbench.colorTheme': theme, ...settings });
        await frame.locator('[data-testid=composer]:not([disabled])').waitFor({ timeout: 30_000 });
        assert.deepEqual(webviewProblems, []);
      } finally {
        await page.close();
      }
    });
  }

  it('at 320 px: empty state with a test result, a pasted and a dropped image, a fake PNG refused, and a model that takes no images says so (harness)', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 320, height: 700 } });
      page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
      await loadPanel(page);
      const post = (m: HostToWebview) => page.evaluate((data) => window.dispatchEvent(new MessageEvent('message', { data })), m);
      const fixture = sessionFixture(0).snapshot as Extract<HostToWebview, { type: 'session/snapshot' }>;
      // The first-run view first (no key): its Test connection and the answer.
      await post(sessionFixture(0, false).snapshot);
      await page.locator('body[data-ready="true"]').waitFor();
      const sent = () => page.evaluate(() => (window as unknown as { __sent: WebviewToHost[] }).__sent);
      /** The panel's last message: the Test connection request, answered by its id. */
      const answerTest = async (result: { ok: boolean; message: string; url?: string }) => {
        const asked = (await sent()).at(-1);
        assert.ok(asked?.type === 'request' && asked.method === 'config/test', JSON.stringify(asked));
        assert.deepEqual(asked.params, {});
        await post({ type: 'reply', id: asked.id, result });
      };
      await page.locator('[data-testid=first-run] [data-testid=test-connection]').click();
      await answerTest({ ok: false, message: 'No Anthropic API key is set: use Set API Key… to set one.' });
      await page.locator('[data-testid=first-run] [data-testid=test-result][data-ok=false]').waitFor();
      assert.ok(await page.locator('[data-testid=first-run] [data-testid=test-result]').isVisible());
      await page.screenshot({ path: screenshotPath('panel-first-run-test-320') });

      await post(fixture);
      await page.locator('[data-testid=examples]').waitFor();
      await page.locator('[data-testid=test-connection]').click();
      await answerTest({
        ok: false,
        message: 'https://api.anthropic.com refused the API key (401). Use Set API Key… to set a valid Anthropic API key.',
        url: 'https://api.anthropic.com',
      });
      await page.locator('[data-testid=test-result][data-ok=false]').waitFor();
      assert.ok(await page.locator('[data-testid=test-result]').isVisible());
      await page.screenshot({ path: screenshotPath('panel-test-result-320') });
      await deliver(page.mainFrame(), 'paste', PASTED, 'a.png');
      await deliver(page.mainFrame(), 'drop', DROPPED, 'b.png');
      await page.locator('[data-testid=attachment]').nth(1).waitFor();
      await page.screenshot({ path: screenshotPath('panel-attach-320') });

      // A photo too large to send (9 MB of PNG) is scaled to the 1568 px the model sees anyway, within the limit.
      const big = makeNoisePng(2000, 1500);
      assert.ok(big.length > 8_000_000);
      await deliver(page.mainFrame(), 'paste', big, 'photo.png');
      const third = page.locator('[data-testid=attachment]').nth(2);
      await third.waitFor();
      assert.match((await third.locator('.hr-attachment-meta > span:first-child').textContent()) ?? '', /^(PNG|JPEG) · 1568×1176$/);
      assert.equal(await page.locator('[data-testid=attachment-note]').isVisible(), false);
      await third.getByRole('button', { name: 'Remove image 3' }).click();
      await third.waitFor({ state: 'detached' });

      // A fake PNG (text bytes) is refused by its bytes, with the reason.
      await page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(['<svg onload=alert(1)>'], 'evil.png', { type: 'image/png' }));
        document.querySelector('[data-testid=composer]')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true }));
      });
      await page.locator('[data-testid=attachment-note]', { hasText: 'evil.png: it is not a PNG, JPEG, GIF or WebP image' }).waitFor();
      assert.equal(await page.locator('[data-testid=attachment]').count(), 2);

      // A model that takes no images: the chip stays, Send refuses with the reason, nothing is sent.
      const noImages = structuredClone(fixture);
      noImages.snapshot.config = { ...noImages.snapshot.config, model: 'o3-mini', modelInfo: { window: '200k', images: false } };
      await post(noImages);
      const box = page.getByRole('textbox', { name: 'Message to Headroom' });
      await box.fill('what is this?');
      await box.press('Enter');
      await page.locator('[data-testid=attachment-note]', { hasText: 'o3-mini takes no images' }).waitFor();
      assert.equal(await box.inputValue(), 'what is this?');
      assert.equal((await sent()).filter((m) => m.type === 'prompt/submit').length, 0);
      await page.screenshot({ path: screenshotPath('panel-no-images-320') });
    } finally {
      await browser.close();
    }
  });
});
