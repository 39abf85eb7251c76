/// <reference lib="dom" />
/**
 * End to end in a real VS Code (code-server), host and loop real, the
 * provider the fake one: a scripted turn edits hello.ts and creates a file (edits auto-approved by the
 * setting), the panel lists the turn's changes with their line counts, a file opens VS Code's diff
 * editor, Restore checkpoint asks in the card, then puts both files back and rewinds the conversation
 * (the next request no longer carries the turn): the chat shows each message once, the rewound turn
 * leaves it with a "Restored to before turn N" note, and its prompt is back in the message box. The card
 * and its confirmation are shot in Dark, Light and High Contrast, and at a 320 px panel.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { changesItem } from '../../src/panel/turn-changes';
import type { HostToWebview } from '../../src/protocol/messages';
import { startFakeProvider, type FakeProvider, type RecordedRequest } from '../fixtures/fake-provider';
import { textContrast } from './contrast';
import { e2e } from './setup';
import { loadPanel, sessionFixture } from './webview-harness';
import { fakeProviderSettings, openHeadroomView, openWorkbench, runPaletteCommand, screenshotPath, type Theme } from './workbench';

const ORIGINAL = 'export const greeting = "hello";\n';

/** Everything the provider was sent in one request (OpenAI protocol), as text. */
const requestText = (req: RecordedRequest) => JSON.stringify(req.body.messages ?? []);

describe('checkpoints in a real VS Code: changes of a turn, diff, restore files and conversation', function () {
  this.timeout(300_000);
  let fake: FakeProvider;

  before(async () => {
    fake = await startFakeProvider();
  });
  after(async () => {
    await fake?.close();
  });

  async function send(frame: Frame, text: string): Promise<void> {
    const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
    await box.fill(text);
    await box.press('Enter');
  }

  async function idleWith(frame: Frame, text: string): Promise<void> {
    await frame.locator('.hr-assistant', { hasText: text }).first().waitFor({ timeout: 60_000 });
    await frame.locator('[data-testid=stop]').waitFor({ state: 'hidden', timeout: 30_000 });
  }

  /** A turn that edits hello.ts and creates `made`; resolves with its changes card. */
  async function editTurn(frame: Frame, made: string, prompt: string) {
    fake.script.push(
      {
        toolCalls: [
          {
            id: `e-${made}`,
            name: 'edit_file',
            arguments: { path: 'hello.ts', old_text: '"hello"', new_text: '"hi"; // changed\nexport const n = 1' },
          },
        ],
      },
      { toolCalls: [{ id: `w-${made}`, name: 'write_file', arguments: { path: made, content: '# made\nby the turn\n' } }] },
      { text: `Edited for ${made}.` },
    );
    await send(frame, prompt);
    await idleWith(frame, `Edited for ${made}.`);
    const card = frame.locator('[data-testid=changes]').last();
    await card.waitFor({ timeout: 30_000 });
    return card;
  }

  const themes: Array<[Theme, string]> = [
    ['Default Dark Modern', 'dark'],
    ['Default Light Modern', 'light'],
    ['Default High Contrast', 'hc'],
  ];
  for (const [theme, name] of themes) {
    it(`lists the turn's changes, opens a diff, and Restore checkpoint brings the files and the conversation back (${theme})`, async () => {
      const { page, webviewProblems } = await openWorkbench(theme, {
        ...fakeProviderSettings(fake, 32_000, 4_000),
        'headroom.autoApprove.edits': true,
      });
      const ws = e2e().workspace;
      const made = `made-${name}.md`;
      // Each theme starts from the same file, whatever an earlier test left.
      writeFileSync(join(ws, 'hello.ts'), ORIGINAL);
      try {
        const frame = await openHeadroomView(page);
        await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
        // The earlier windows' extension hosts live on in code-server; idle, they hand the store to this one.
        assert.equal(await frame.locator('[data-testid=storage-note]').count(), 0, 'this window saves: it is not read-only');
        fake.script.push({ text: `Hello ${name}.` });
        await send(frame, `first prompt ${name}`);
        await idleWith(frame, `Hello ${name}.`);
        const card = await editTurn(frame, made, `edit prompt ${name}`);
        assert.equal(readFileSync(join(ws, 'hello.ts'), 'utf8'), 'export const greeting = "hi"; // changed\nexport const n = 1;\n');
        assert.match((await card.textContent()) ?? '', /Changes in this turn · 2 files/);
        const files = card.locator('[data-testid=changed-file]');
        assert.deepEqual(await files.allTextContents(), ['hello.ts', made]);
        assert.match((await card.locator('li').first().textContent()) ?? '', /hello\.ts \+2 −1/);
        assert.match((await card.locator('li').nth(1).textContent()) ?? '', /\+2 −0 \(new\)/);
        const ratio = await textContrast(frame, '[data-testid=changes] .hr-changes-counts');
        assert.ok(ratio >= 4.5, `line counts contrast ${ratio.toFixed(2)}:1 in ${theme}`);
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath(`checkpoint-changes-${name}`) });

        if (name === 'dark') {
          // The diff: before the turn (read-only) ↔ the file now, in VS Code's diff editor.
          await files.first().click();
          await page.locator('.tab', { hasText: /hello\.ts \(before turn \d+ ↔ now\)/ }).waitFor({ timeout: 30_000 });
          await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
          const original = await page.locator('.monaco-diff-editor .editor.original .view-lines').first().textContent();
          // Monaco renders spaces as no-break spaces.
          assert.match((original ?? '').replace(/\u00a0/g, ' '), /greeting = "hello"/);
          await page.screenshot({ path: screenshotPath('checkpoint-diff-dark') });
          // Keyboard: the confirmation opens with focus on Restore, and Escape cancels it.
          await card.getByRole('button', { name: 'Restore checkpoint: files and conversation to before this turn' }).focus();
          await page.keyboard.press('Enter');
          await card.locator('[data-testid=restore-confirm]').waitFor();
          await page.keyboard.press('Escape');
          await card.locator('[data-testid=restore-confirm]').waitFor({ state: 'detached' });
        }

        await card.getByRole('button', { name: 'Restore checkpoint: files and conversation to before this turn' }).click();
        const confirm = card.locator('[data-testid=restore-confirm]');
        await confirm.waitFor();
        assert.match((await confirm.textContent()) ?? '', /Put 2 files back as they were before this turn and rewind the conversation/);
        await page.screenshot({ path: screenshotPath(`checkpoint-confirm-${name}`) });
        await confirm.getByRole('button', { name: 'Restore', exact: true }).click();

        const note = frame.locator('[data-testid=notice]', { hasText: /Restored to before turn \d+ \(files and conversation\)/ });
        await note.waitFor({ timeout: 30_000 });
        assert.match((await note.textContent()) ?? '', /2 files restored\. Your prompt is back in the message box\./);
        assert.equal(readFileSync(join(ws, 'hello.ts'), 'utf8'), ORIGINAL, 'hello.ts is back as it was before the turn');
        assert.equal(existsSync(join(ws, made)), false, 'the file the turn created is gone');
        // Each message once: the earlier exchange stays where it was (not repeated under a divider), the
        // rewound turn leaves the chat, and its prompt is back in the message box to edit.
        assert.equal(await frame.locator('.hr-user', { hasText: `first prompt ${name}` }).count(), 1, 'the earlier prompt shows once');
        assert.equal(await frame.locator('.hr-assistant', { hasText: `Hello ${name}.` }).count(), 1, 'the earlier answer shows once');
        assert.equal(await frame.locator('.hr-user', { hasText: `edit prompt ${name}` }).count(), 0, 'the rewound prompt left the chat');
        const box = frame.getByRole('textbox', { name: 'Message to Headroom' });
        // The prompt follows the restored chat in the next batch of messages: wait for it to arrive.
        await frame
          .waitForFunction((text) => document.querySelector('textarea')?.value === text, `edit prompt ${name}`, { timeout: 10_000 })
          .catch(() => {});
        assert.equal(await box.inputValue(), `edit prompt ${name}`, 'the rewound prompt is back in the message box');
        await page.screenshot({ path: screenshotPath(`checkpoint-restored-${name}`) });

        // The conversation is rewound: the next request carries the first prompt, not the rewound turn.
        const start = fake.requests.length;
        fake.script.push({ text: `After restore ${name}.` });
        await send(frame, `after restore ${name}`);
        await idleWith(frame, `After restore ${name}.`);
        const sent = requestText(fake.requests[start]);
        assert.match(sent, new RegExp(`first prompt ${name}`));
        assert.doesNotMatch(sent, new RegExp(`edit prompt ${name}`));
        assert.deepEqual(webviewProblems, []);
        // Leave a fresh session behind: the suites after this one share the workspace.
        await runPaletteCommand(page, 'Headroom: New Session');
        await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
      } catch (err) {
        await page.screenshot({ path: screenshotPath(`failure-checkpoint-${name}`) }).catch(() => {});
        throw err;
      } finally {
        await page.close();
      }
    });
  }

  it('the changes card and its confirmation fit a 320 px panel', async () => {
    const page: Page = await e2e().browser.newPage({ viewport: { width: 320, height: 700 } });
    try {
      await loadPanel(page);
      const card = changesItem('c1', {
        turn: 4,
        files: [
          { path: 'src/components/settings/provider-settings-panel.tsx', change: 'modified', added: 12, removed: 3, restorable: true },
          { path: 'docs/new-page.md', change: 'created', added: 40, removed: 0, restorable: true },
          { path: 'data/large-fixture.json', change: 'modified', restorable: false },
        ],
      });
      const messages: HostToWebview[] = [sessionFixture(4).snapshot, { type: 'chat/ops', ops: [{ op: 'append', item: card }] }];
      await page.evaluate((ms) => ms.forEach((data) => window.dispatchEvent(new MessageEvent('message', { data }))), messages);
      const shown = page.locator('[data-testid=changes]');
      await shown.waitFor();
      await shown.getByRole('button', { name: /^Restore checkpoint/ }).click();
      await shown.locator('[data-testid=restore-confirm]').waitFor();
      await shown.scrollIntoViewIfNeeded();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the panel scrolls sideways by ${overflow}px at 320 px`);
      assert.match((await shown.textContent()) ?? '', /1 file cannot be restored/);
      await page.screenshot({ path: screenshotPath('checkpoint-confirm-320') });
      // Restore sends the intent with the turn.
      await shown.getByRole('button', { name: 'Restore', exact: true }).click();
      const sent = await page.evaluate(() => (window as unknown as { __sent: Array<{ type: string }> }).__sent);
      assert.deepEqual(
        sent.filter((m) => m.type.startsWith('checkpoint/')),
        [{ type: 'checkpoint/restore', turn: 4 }],
      );
    } finally {
      await page.close();
    }
  });
});
