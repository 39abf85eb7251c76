/// <reference lib="dom" />
/**
 * End to end in a real VS Code (code-server), the host and loop real, the
 * provider the fake one: "Allow for this session" runs the same command again without asking (and only
 * that command), a rejection's reason reaches the model, the approve / reject keys answer from the
 * editor and Focus Panel's key brings the focus back, and a manual compaction shows its running row
 * with Cancel while Send is held, then a card whose View summary renders the model's summary.
 */
import * as assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { startFakeProvider, type FakeProvider, type FakeStep, type RecordedRequest } from '../fixtures/fake-provider';
import { fakeProviderSettings, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath } from './workbench';

let fake: FakeProvider;
let page: Page;
let frame: Frame;
let problems: string[];

async function send(text: string): Promise<void> {
  const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
  await box.fill(text);
  await box.press('Enter');
}

async function requestsReach(n: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (fake.requests.length < n) {
    if (Date.now() > deadline) throw new Error(`the provider got ${fake.requests.length} of ${n} requests`);
    await page.waitForTimeout(100);
  }
}

async function idleWith(text: string): Promise<void> {
  await frame.locator('.hr-assistant', { hasText: text }).first().waitFor({ timeout: 30_000 });
  await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
}

/** The text of the tool results in a request the provider received (OpenAI protocol: role "tool"). */
function toolResults(req: RecordedRequest): string {
  const messages = (req.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  return messages
    .filter((m) => m.role === 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

const runCommand = (id: string, command: string, rerun?: string): FakeStep => ({
  toolCalls: [{ id, name: 'run_command', arguments: rerun === undefined ? { command } : { command, rerun } }],
});

describe('approvals for the session and a visible compaction in a real VS Code', function () {
  this.timeout(180_000);

  before(async () => {
    // 40 ms between streamed events: a summary streamed 6 characters at a time takes seconds, long enough to see it run.
    fake = await startFakeProvider({ eventDelayMs: 40 });
    const opened = await openWorkbench('Default Dark Modern', fakeProviderSettings(fake, 32_000, 4_000));
    page = opened.page;
    problems = opened.webviewProblems;
    frame = await openHeadroomView(page);
    await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page
        ?.screenshot({ path: screenshotPath(`failure-approvals-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`) })
        .catch(() => {});
  });

  after(async () => {
    if (page) {
      // Leave a fresh session for the suites after this one (they share the workspace).
      await runPaletteCommand(page, 'Headroom: New Session').catch(() => {});
      await page.close().catch(() => {});
    }
    await fake?.close();
  });

  it('"Allow for this session" runs the same command again without asking, and only that command', async () => {
    const start = fake.requests.length;
    fake.script.push(runCommand('call_a1', 'echo allowed-e2e'), { text: 'Ran it once.' });
    await send('Run echo allowed-e2e');
    const approval = frame.locator('[data-testid=approval]').last();
    await approval.waitFor({ timeout: 30_000 });
    // While the user decides, the card says so (and that time is not the command's duration).
    await frame.locator('[data-testid=tool-card]', { hasText: 'waiting for you' }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: screenshotPath('approvals-session-pending') });
    await approval.getByRole('button', { name: 'Allow for this session: this exact command' }).click();
    await idleWith('Ran it once.');
    await requestsReach(start + 2);
    assert.match(toolResults(fake.requests[start + 1]), /allowed-e2e\n\[exit code 0\]/);

    // The same command again, nothing in the workspace changed and no reason given: the repeat guard
    // answers with the earlier run instead of running it (and asks nobody).
    const approvalsBefore = await frame.locator('[data-testid=approval]').count();
    fake.script.push(runCommand('call_a2', 'echo allowed-e2e'), { text: 'Not repeated.' });
    await send('Run it again');
    await idleWith('Not repeated.');
    await requestsReach(start + 4);
    const refused = toolResults(fake.requests[start + 3]);
    assert.match(
      refused,
      /Not run again: `echo allowed-e2e` already ran at turn \d+ with exit 0, and no file in the workspace changed since\./,
    );
    assert.match(refused, /call run_command again with rerun set to the reason/);
    assert.equal(refused.match(/allowed-e2e\n\[exit code 0\]/g)?.length, 1, 'the guard did not run it a second time');
    await frame.locator('[data-testid=tool-note]', { hasText: 'Not run again: `echo allowed-e2e`' }).waitFor({ timeout: 10_000 });

    // With the reason to run it again: it runs, without a new approval (the session allowed it).
    fake.script.push(runCommand('call_a3', 'echo allowed-e2e', 'the user asked to run it again'), { text: 'Ran it twice.' });
    await send('Run it again anyway');
    await idleWith('Ran it twice.');
    await requestsReach(start + 6);
    assert.equal(await frame.locator('[data-testid=approval]').count(), approvalsBefore, 'no new approval for an allowed command');
    assert.equal(toolResults(fake.requests[start + 5]).match(/allowed-e2e\n\[exit code 0\]/g)?.length, 2, 'it ran a second time');
  });

  it('a different command still asks, and the reason for rejecting it reaches the model', async () => {
    const start = fake.requests.length;
    fake.script.push(runCommand('call_a4', 'echo other-e2e'), { text: 'Understood, not running it.' });
    await send('Run echo other-e2e');
    const approval = frame.locator('[data-testid=approval]').last();
    await approval.getByRole('button', { name: 'Reject the command' }).waitFor({ timeout: 30_000 });
    await approval.getByRole('textbox', { name: 'Reason for rejecting (sent to the model)' }).fill('use the test suite instead');
    await approval.getByRole('button', { name: 'Reject the command' }).click();
    await idleWith('Understood, not running it.');
    await requestsReach(start + 2);
    const results = toolResults(fake.requests[start + 1]);
    assert.match(
      results,
      /The user rejected the command `echo other-e2e`; it was not run\. The user's reason: "use the test suite instead"/,
    );
    assert.doesNotMatch(results, /other-e2e\n\[exit code/);
  });

  it('the keys answer an approval from the editor (Ctrl+Shift+Alt+Y / R), and Ctrl+Alt+H brings focus back to the panel', async () => {
    const panelHasFocus = () => frame.evaluate(() => document.hasFocus());
    async function focusEditor(): Promise<void> {
      await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
      await page.locator('.monaco-editor.focused').waitFor({ timeout: 10_000 });
      assert.equal(await panelHasFocus(), false, 'the editor has the focus, not the panel');
    }
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill('hello.ts');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'hello.ts' }).first().waitFor({ timeout: 20_000 });
    await page.keyboard.press('Enter');
    await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor({ timeout: 20_000 });

    const start = fake.requests.length;
    fake.script.push(runCommand('call_k1', 'echo keyed-yes-e2e'), { text: 'Ran it by key.' });
    await send('Run echo keyed-yes-e2e');
    await frame.locator('[data-testid=approval]').last().getByRole('button', { name: 'Reject the command' }).waitFor({ timeout: 30_000 });
    await focusEditor();
    await page.keyboard.press('Control+Shift+Alt+Y');
    await idleWith('Ran it by key.');
    await requestsReach(start + 2);
    assert.match(toolResults(fake.requests[start + 1]), /keyed-yes-e2e\n\[exit code 0\]/);

    fake.script.push(runCommand('call_k2', 'echo keyed-no-e2e'), { text: 'Not running it.' });
    await send('Run echo keyed-no-e2e');
    await frame.locator('[data-testid=approval]').last().getByRole('button', { name: 'Reject the command' }).waitFor({ timeout: 30_000 });
    await focusEditor();
    await page.keyboard.press('Control+Shift+Alt+R');
    await idleWith('Not running it.');
    await requestsReach(start + 4);
    const rejected = toolResults(fake.requests[start + 3]);
    assert.match(rejected, /The user rejected the command `echo keyed-no-e2e`; it was not run/);
    assert.doesNotMatch(rejected, /keyed-no-e2e\n\[exit code/);

    // From the editor, Focus Panel's key puts the focus in the panel.
    await focusEditor();
    await page.keyboard.press('Control+Alt+H');
    for (const deadline = Date.now() + 10_000; !(await panelHasFocus()); await page.waitForTimeout(100))
      if (Date.now() > deadline) throw new Error('Ctrl+Alt+H did not focus the Headroom panel');
    // What is typed next goes to the prompt box.
    await page.keyboard.type('typed after the key');
    const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
    assert.equal(await box.inputValue(), 'typed after the key');
    await page.screenshot({ path: screenshotPath('approvals-keys-focus-panel') });
    await box.fill('');
    await runPaletteCommand(page, 'View: Close All Editors');
  });

  it('a manual compaction shows "Compacting…" with Cancel while Send is held, then a card whose View summary renders the summary', async () => {
    for (let i = 0; i < 4; i++) {
      fake.script.push({ text: `Answer ${i}: ${'plenty of words here '.repeat(150)}`, chunkChars: 4_000 });
      await send(`Question ${i}: ${'context '.repeat(200)}`);
      await idleWith(`Answer ${i}:`);
    }
    const summary = '## Done\n- answered **four questions** about the context\n\n## Next\n- [ ] a fifth question';
    fake.script.push({ text: summary, chunkChars: 6 });
    await frame.getByRole('button', { name: 'Compact the context now' }).click();
    const row = frame.locator('[data-testid=compacting]');
    await row.waitFor({ timeout: 20_000 });
    assert.match((await row.textContent()) ?? '', /Compacting…/);
    assert.equal(await row.getByRole('button', { name: 'Cancel' }).isVisible(), true);
    assert.equal(await frame.locator('[data-testid=send]').isDisabled(), true, 'Send is held while compacting');
    await page.screenshot({ path: screenshotPath('approvals-compacting-running') });
    await row.waitFor({ state: 'detached', timeout: 60_000 });

    const card = frame.locator('[data-testid=compaction]').last();
    await card.locator('[data-testid=compaction-kept]').waitFor({ timeout: 20_000 });
    await card.locator('summary', { hasText: 'View summary' }).click();
    await card.locator('.hr-md strong', { hasText: 'four questions' }).waitFor({ timeout: 10_000 });
    assert.equal(await card.locator('.hr-md input[type=checkbox]').count(), 1, 'the summary is rendered markdown, task list included');
    // The summary is a card, never a user bubble.
    assert.equal(await frame.locator('.hr-user', { hasText: 'four questions' }).count(), 0);
    assert.equal(await frame.locator('[data-testid=send]').isEnabled(), true, 'Send is back after the compaction');
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('approvals-compaction-summary') });
    assert.deepEqual(problems, [], 'no console errors or CSP violations in the webview');
  });
});
