/// <reference lib="dom" />
/**
 * In a real VS Code (code-server), the host and loop real, the provider the fake one: a
 * session records its work ("Work so far": plan, files, a failed command, an error), a manual
 * compaction shows what left the context, and after a window reload the resumed session rebuilds the
 * card with the same view (it is stored with the compaction). Screenshots and measured text contrast
 * in Dark Modern, Light Modern and High Contrast.
 */
import * as assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { writeUserSettings } from '../../scripts/lib/code-server.mjs';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { textContrast } from './contrast';
import { e2e } from './setup';
import {
  fakeProviderSettings,
  headroomFrame,
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

/** After a reload: the Headroom view as the window restored it (opened when it was not). */
async function reopenedView(): Promise<Frame> {
  await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  try {
    return await headroomFrame(page, 20_000);
  } catch {
    return openHeadroomView(page);
  }
}

async function send(text: string): Promise<void> {
  const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
  await box.fill(text);
  await box.press('Enter');
}

async function idleWith(text: string): Promise<void> {
  await frame.locator('.hr-assistant', { hasText: text }).first().waitFor({ timeout: 60_000 });
  await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
}

/** Opens a collapsible section (a `<details>`) by its summary text, if it is closed. */
async function expand(scope: ReturnType<Frame['locator']>, title: string): Promise<void> {
  const details = scope.locator('details', { has: frame.locator(`summary:has-text("${title}")`) }).first();
  if (!(await details.evaluate((d) => (d as HTMLDetailsElement).open))) await details.locator('summary').first().click();
}

/**
 * Both views open, the card in view; the lines of "What left the context" as shown. A resumed panel
 * renders its restored snapshot and then the first live one (meter, calibration); an element found in
 * the first can be replaced by the second, so the whole look is retried on a detached element.
 */
async function showBoth(): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await showBothOnce();
    } catch (error) {
      if (attempt >= 3 || !/not attached|detached/i.test(String(error))) throw error;
      await page.waitForTimeout(500);
    }
  }
}

async function showBothOnce(): Promise<string> {
  const work = frame.locator('[data-testid=work-so-far]');
  await work.waitFor({ timeout: 30_000 });
  if (!(await work.evaluate((d) => (d as HTMLDetailsElement).open))) await work.locator('summary').first().click();
  const card = frame.locator('[data-testid=compaction]').last();
  await card.waitFor({ timeout: 30_000 });
  await expand(card, 'What left the context');
  const view = card.locator('[data-testid=compaction-details] .hr-compaction-view');
  await view.waitFor({ timeout: 10_000 });
  await card.scrollIntoViewIfNeeded();
  for (const el of [work, view]) {
    const { scroll, client } = await el.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
    assert.ok(scroll <= client + 1, `nothing runs out sideways (${scroll} > ${client})`);
  }
  return (await view.textContent()) ?? '';
}

/** Text contrast of the two views' lines, ≥ 4.5:1 in every theme. */
async function assertReadable(theme: string): Promise<void> {
  for (const sel of [
    '[data-testid=work-so-far] .hr-lines li',
    '[data-testid=work-so-far] .hr-fail',
    '.hr-compaction-view .hr-label',
    '.hr-compaction-view .hr-lines li',
    '.hr-compaction-view > .hr-muted',
    '.hr-compaction-kept',
  ]) {
    const ratio = await textContrast(frame, sel);
    assert.ok(ratio >= 4.5, `${sel} contrast ${ratio.toFixed(2)}:1 in ${theme}`);
  }
}

describe('work so far and what left the context in a real VS Code', function () {
  this.timeout(300_000);
  const settings = () => fakeProviderSettings(fake, 32_000, 4_000);

  before(async () => {
    fake = await startFakeProvider();
    const opened = await openWorkbench('Default Dark Modern', settings());
    page = opened.page;
    problems = opened.webviewProblems;
    frame = await openHeadroomView(page);
    await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page
        ?.screenshot({ path: screenshotPath(`failure-fidelity-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`) })
        .catch(() => {});
  });

  after(async () => {
    if (page) {
      writeUserSettings(e2e().userDataDir, { 'workbench.colorTheme': 'Default Dark Modern', ...settings() });
      // Leave a fresh session for the suites after this one (they share the workspace).
      await runPaletteCommand(page, 'Headroom: New Session').catch(() => {});
      await page.close().catch(() => {});
    }
    await fake?.close();
  });

  let shown = '';

  it('records the work, compacts, and the card shows what left the context (Dark)', async () => {
    fake.script.push(
      {
        toolCalls: [
          {
            id: 'call_p1',
            name: 'update_plan',
            arguments: {
              items: [
                { text: 'read hello.ts', status: 'done' },
                { text: 'make the greeting configurable without breaking the existing callers', status: 'in_progress' },
                { text: 'run the tests', status: 'open' },
              ],
              decisions: ['keep the export name "greeting"'],
            },
          },
          { id: 'call_r1', name: 'read_file', arguments: { path: 'hello.ts' } },
          { id: 'call_r2', name: 'read_file', arguments: { path: 'missing-fidelity.ts' } },
        ],
      },
      { toolCalls: [{ id: 'call_c1', name: 'run_command', arguments: { command: 'ls no-such-dir-fidelity' } }] },
      { text: `Answer 0: ${'the greeting module is small and well tested '.repeat(40)}`, chunkChars: 4_000 },
    );
    await send('Question 0: look at hello.ts and plan the change');
    const approval = frame.locator('[data-testid=approval]').last();
    await approval.waitFor({ timeout: 60_000 });
    await approval.getByRole('button', { name: 'Allow for this session: this exact command' }).click();
    await idleWith('Answer 0:');
    for (let i = 1; i < 4; i++) {
      fake.script.push({ text: `Answer ${i}: ${'plenty of words about the greeting '.repeat(150)}`, chunkChars: 4_000 });
      await send(`Question ${i}: ${'context '.repeat(200)}`);
      await idleWith(`Answer ${i}:`);
    }
    fake.script.push({
      text: '## Done\n- read **hello.ts**; planned a configurable greeting\n\n## Next\n- [ ] run the tests',
      chunkChars: 400,
    });
    await frame.getByRole('button', { name: 'Compact the context now' }).click();
    await frame.locator('[data-testid=compaction] [data-testid=compaction-kept]').waitFor({ timeout: 60_000 });

    shown = await showBoth();
    assert.match(shown, /Kept verbatim \(\d+\)/);
    assert.match(shown, /Summarized \(\d+\)/);
    assert.match(shown, /You: Question 0: look at hello\.ts/);
    const work = (await frame.locator('[data-testid=work-so-far]').textContent()) ?? '';
    for (const expected of ['hello.ts', 'ls no-such-dir-fidelity', 'make the greeting configurable', 'missing-fidelity.ts'])
      assert.ok(work.includes(expected), `"Work so far" shows ${expected}: ${work}`);
    assert.match(work, /exit [1-9]/, 'the failed command with its exit code');
    await page.screenshot({ path: screenshotPath('fidelity-what-left-dark') });
    await assertReadable('Dark Modern');
  });

  it('after a window reload the resumed session shows the same card with the same view', async () => {
    assert.ok(shown, 'the first test ran');
    await page.reload();
    frame = await reopenedView();
    const again = await showBoth();
    assert.equal(again, shown, 'the stored view is the one shown when the compaction ran');
    const card = frame.locator('[data-testid=compaction]').last();
    assert.equal(await card.getByRole('button', { name: 'Undo' }).isEnabled(), true, 'the newest compaction can still be undone');
    await page.screenshot({ path: screenshotPath('fidelity-what-left-reopened-dark') });
    // The transcript is never replaced. The reopened chat is the stored transcript, so the first
    // prompt (summarized away, no longer in the context) is there again on scrolling up, above the divider and card.
    const first = frame.locator('.hr-user', { hasText: 'Question 0: look at hello.ts' });
    assert.equal(await first.count(), 1, 'the first prompt is shown once');
    await first.scrollIntoViewIfNeeded();
    const order = await frame
      .locator('.hr-user, [data-testid=divider], [data-testid=compaction]')
      .evaluateAll((els) =>
        els.map((e) => (e.matches('.hr-user') ? (e.textContent ?? '').slice(0, 12) : (e.getAttribute('data-testid') ?? ''))),
      );
    const at = (label: string) => order.findIndex((l) => l.startsWith(label));
    assert.ok(at('Question 0') >= 0 && at('Question 0') < at('divider'), `the first prompt is above the divider: ${order.join(' | ')}`);
    assert.ok(at('divider') < at('compaction'), `the divider is above the card: ${order.join(' | ')}`);
    assert.equal(order.filter((l) => l.startsWith('Question 3')).length, 1, 'a kept turn is shown once, not again from the context');
    const prompts = order.filter((l) => !['divider', 'compaction'].includes(l));
    assert.equal(prompts.length, 4, `the four prompts, each once, and no summary as a user bubble: ${order.join(' | ')}`);
    await page.screenshot({ path: screenshotPath('fidelity-reopened-first-prompt-dark') });
  });

  const themes: Array<[Theme, string]> = [
    ['Default Light Modern', 'light'],
    ['Default High Contrast', 'hc'],
  ];
  for (const [theme, name] of themes) {
    it(`both views read well in ${theme} (fidelity-what-left-${name}.png)`, async () => {
      writeUserSettings(e2e().userDataDir, { 'workbench.colorTheme': theme, ...settings() });
      await page.reload();
      frame = await reopenedView();
      await showBoth();
      await page.screenshot({ path: screenshotPath(`fidelity-what-left-${name}`) });
      await assertReadable(theme);
      assert.deepEqual(problems, [], 'no console errors or CSP violations in the webview');
    });
  }
});
