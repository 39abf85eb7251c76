/// <reference lib="dom" />
/**
 * The compaction receipt and the repeat guard's note as a user sees them, in a real VS Code (host and
 * loop real, the provider the fake one, its summarizer naming nothing): the card says what the context
 * still carries of what left it ("Receipt: kept … — N missing"), lists the missing items with Pin, and
 * a pinned item is in the next request; a command the model runs again with nothing changed shows
 * "Not run again: …" under its tool card. After a reload the card comes back the same, the pinned item
 * still pinned. Screenshots and text contrast in Dark Modern, Light Modern, High Contrast and a 320 px
 * side bar: test-results/e2e/receipt-<variant>.png, receipt-note-<variant>.png.
 */
import * as assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { writeUserSettings } from '../../scripts/lib/code-server.mjs';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { textContrast } from './contrast';
import { e2e } from './setup';
import {
  assertNoSidewaysSpill,
  fakeProviderSettings,
  headroomFrame,
  narrowSidebar,
  openHeadroomView,
  openWorkbench,
  runPaletteCommand,
  screenshotPath,
  type Theme,
} from './workbench';

let fake: FakeProvider;
let page: Page;
let frame: Frame;
let problems: string[];

const settings = () => ({
  ...fakeProviderSettings(fake, 64_000, 4_000),
  'headroom.autoApprove.edits': true,
  'headroom.autoApprove.commands': ['echo'],
});

async function send(text: string): Promise<void> {
  const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
  await box.fill(text);
  await box.press('Enter');
}

async function idleWith(text: string): Promise<void> {
  await frame.locator('.hr-assistant', { hasText: text }).first().waitFor({ timeout: 60_000 });
  await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
}

async function reopenedView(): Promise<Frame> {
  await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  try {
    return await headroomFrame(page, 20_000);
  } catch {
    return openHeadroomView(page);
  }
}

/**
 * The card's receipt in view; its text once the panel stopped re-rendering (a reopened window renders
 * the session again when the host's snapshot arrives): scrolled and read in the page, in one step.
 */
async function receipt(): Promise<string> {
  await frame.locator('[data-testid=compaction] [data-testid=compaction-receipt]').last().waitFor({ timeout: 60_000 });
  const read = () =>
    frame.evaluate(() => {
      const all = document.querySelectorAll('[data-testid=compaction] [data-testid=compaction-receipt]');
      const last = all[all.length - 1];
      last?.scrollIntoView({ block: 'center' });
      return last?.textContent ?? '';
    });
  let text = await read();
  for (let same = 0; same < 3;) {
    await page.waitForTimeout(300);
    const now = await read();
    same = now === text && now !== '' ? same + 1 : 0;
    text = now;
  }
  return text;
}

async function assertReadable(variant: string): Promise<void> {
  for (const sel of ['.hr-receipt-line', '.hr-receipt-missing code', '.hr-receipt-kind', '.hr-receipt-pin', '[data-testid=tool-note]']) {
    const ratio = await textContrast(frame, sel);
    assert.ok(ratio >= 4.5, `${sel} contrast ${ratio.toFixed(2)}:1 in ${variant}`);
  }
}

async function shots(variant: string): Promise<void> {
  await receipt();
  await page.screenshot({ path: screenshotPath(`receipt-${variant}`) });
  await frame.evaluate(() => document.querySelector('[data-testid=tool-note]')?.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: screenshotPath(`receipt-note-${variant}`) });
  await assertNoSidewaysSpill(frame, variant);
  await assertReadable(variant);
}

describe('compaction receipt and repeat note in a real VS Code', function () {
  this.timeout(300_000);

  before(async () => {
    fake = await startFakeProvider();
    const opened = await openWorkbench('Default Dark Modern', settings());
    page = opened.page;
    problems = opened.webviewProblems;
    frame = await openHeadroomView(page);
    await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
    await runPaletteCommand(page, 'Headroom: New Session');
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page
        ?.screenshot({ path: screenshotPath(`failure-receipt-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`) })
        .catch(() => {});
  });

  after(async () => {
    if (page) {
      writeUserSettings(e2e().userDataDir, { 'workbench.colorTheme': 'Default Dark Modern', ...fakeProviderSettings(fake, 32_000, 4_000) });
      await runPaletteCommand(page, 'Headroom: New Session').catch(() => {});
      await page.close().catch(() => {});
    }
    await fake?.close();
  });

  it('a command run again with nothing changed is not run; the card lists what is missing and Pin puts it back (Dark)', async () => {
    fake.script.push(
      {
        toolCalls: [{ id: 'call_w1', name: 'write_file', arguments: { path: 'receipt-demo.ts', content: 'export const port = 8443;\n' } }],
      },
      { toolCalls: [{ id: 'call_c1', name: 'run_command', arguments: { command: 'echo RECEIPT-CHECK-OK' } }] },
      {
        text: `Done. I also looked at src/legacy/adapter.ts: one request took 1834 ms. ${'the demo is small '.repeat(60)}`,
        chunkChars: 4_000,
      },
    );
    await send('Write receipt-demo.ts with port 8443, then check it. Never touch the migrations.');
    await idleWith('Done. I also looked');
    fake.script.push(
      { toolCalls: [{ id: 'call_c2', name: 'run_command', arguments: { command: 'echo RECEIPT-CHECK-OK' } }] },
      { text: `Checked again. ${'nothing new to say '.repeat(100)}`, chunkChars: 4_000 },
    );
    await send('Check it again.');
    await idleWith('Checked again.');
    const note = frame.locator('[data-testid=tool-note]');
    await note.waitFor({ timeout: 30_000 });
    assert.match((await note.textContent()) ?? '', /^↺?\s*Not run again: `echo RECEIPT-CHECK-OK` already ran at turn 1 with exit 0/);
    for (let i = 0; i < 2; i++) {
      fake.script.push({ text: `Answer ${i}: ${'plenty of words about the demo '.repeat(150)}`, chunkChars: 4_000 });
      await send(`Question ${i}: ${'context '.repeat(200)}`);
      await idleWith(`Answer ${i}:`);
    }
    fake.script.push({ text: '## Goal\nKeep going.' });
    await frame.getByRole('button', { name: 'Compact the context now' }).click();
    const text = await receipt();
    assert.match(text, /^Receipt: kept \d+\/\d+ instructions?, .*— \d+ missing/);
    const item = frame.locator('.hr-receipt-missing li', { hasText: 'src/legacy/adapter.ts' });
    await item.waitFor({ timeout: 10_000 });
    await item.getByRole('button', { name: /^Pin path src\/legacy\/adapter\.ts/ }).click();
    await item.getByRole('button', { name: /^Pinned/ }).waitFor({ timeout: 20_000 });
    const before = fake.requests.length;
    fake.script.push({ text: 'Next answer.' });
    await send('What next?');
    await idleWith('Next answer.');
    assert.ok(
      JSON.stringify(fake.requests[before].body).includes('A file from earlier work: src/legacy/adapter.ts'),
      'the pin is in the next request',
    );
    await shots('dark');
  });

  it('after a reload the card is the same and the item still pinned', async () => {
    const shown = await receipt();
    await page.reload();
    frame = await reopenedView();
    assert.equal(await receipt(), shown);
    await frame
      .locator('.hr-receipt-missing li', { hasText: 'src/legacy/adapter.ts' })
      .getByRole('button', { name: /^Pinned/ })
      .waitFor();
    assert.equal(await frame.locator('[data-testid=tool-note]').count(), 1, 'the note comes back with the stored transcript');
  });

  const variants: Array<{ name: string; theme: Theme; sidebar?: number }> = [
    { name: 'light', theme: 'Default Light Modern' },
    { name: 'hc', theme: 'Default High Contrast' },
    { name: '320', theme: 'Default Dark Modern', sidebar: 320 },
  ];
  for (const v of variants) {
    it(`reads well: ${v.name} (receipt-${v.name}.png)`, async () => {
      // A fresh window in the theme: it resumes the session, and the card is rebuilt from the store.
      await page.close();
      const opened = await openWorkbench(v.theme, settings());
      page = opened.page;
      problems = opened.webviewProblems;
      frame = await reopenedView();
      if (v.sidebar) await narrowSidebar(page, v.sidebar);
      await shots(v.name);
      assert.deepEqual(problems, [], 'no console errors or CSP violations in the webview');
    });
  }
});
