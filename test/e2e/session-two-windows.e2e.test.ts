/// <reference lib="dom" />
/**
 * Two browser tabs on one workspace in a real VS Code (code-server keeps a tab's extension host alive
 * after the tab closes, for its reconnection grace time): the newer tab gets the sessions writable
 * from the idle older one, which then says it is read-only; what the newer tab does is saved, and a
 * third tab resumes it.
 */
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { fakeProviderSettings, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath } from './workbench';

describe('two windows on one workspace in a real VS Code', function () {
  this.timeout(300_000);
  let fake: FakeProvider;

  before(async () => {
    fake = await startFakeProvider();
  });
  after(async () => {
    await fake?.close();
  });

  async function ask(frame: Frame, prompt: string, answer: string): Promise<void> {
    fake.script.push({ text: answer });
    const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
    await box.fill(prompt);
    await box.press('Enter');
    await frame.locator('.hr-assistant', { hasText: answer }).waitFor({ timeout: 60_000 });
    await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
  }

  it('the newer window takes the sessions over from the idle older one, which says so; its turns are saved', async () => {
    const settings = fakeProviderSettings(fake, 32_000, 4_000);
    const a = await openWorkbench('Default Dark Modern', settings);
    const b = { page: undefined as Awaited<ReturnType<typeof openWorkbench>>['page'] | undefined };
    try {
      const frameA = await openHeadroomView(a.page);
      await runPaletteCommand(a.page, 'Headroom: New Session');
      await frameA.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
      await ask(frameA, 'Remember the word teal.', 'Answer from the first window.');

      const opened = await openWorkbench('Default Dark Modern', settings);
      b.page = opened.page;
      const frameB = await openHeadroomView(opened.page);
      await frameB.locator('.hr-assistant', { hasText: 'Answer from the first window.' }).waitFor({ timeout: 60_000 });
      const noteA = frameA.locator('[data-testid=storage-note]');
      await noteA.waitFor({ timeout: 30_000 });
      assert.match((await noteA.textContent()) ?? '', /^Read-only: a newer VS Code window on this workspace took over Headroom's sessions/);
      assert.equal(await frameB.locator('[data-testid=storage-note]').count(), 0, 'the newer window saves');
      await a.page.screenshot({ path: screenshotPath('two-windows-older-read-only') });

      await ask(frameB, 'And the word amber.', 'Answer from the second window.');
    } finally {
      await a.page.close().catch(() => {});
      await b.page?.close().catch(() => {});
    }

    // A third window resumes the session with the second window's turn in it: it was saved.
    const c = await openWorkbench('Default Dark Modern', settings);
    try {
      const frameC = await openHeadroomView(c.page);
      await frameC.locator('.hr-assistant', { hasText: 'Answer from the second window.' }).waitFor({ timeout: 60_000 });
      assert.equal(await frameC.locator('[data-testid=storage-note]').count(), 0, 'the third window saves too');
      await c.page.screenshot({ path: screenshotPath('two-windows-resumed') });
      // The specs after this one start from an empty session, as they would without it.
      await runPaletteCommand(c.page, 'Headroom: New Session');
      await frameC.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
    } finally {
      await c.page.close().catch(() => {});
    }
  });
});
