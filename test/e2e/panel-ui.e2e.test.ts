/// <reference lib="dom" />
/**
 * The panel's UI behaviour in Chromium, driven through its protocol: the built bundle runs in a
 * harness page with a stub webview API (test/e2e/webview-harness.ts), the test posts host messages
 * and checks what the panel renders and sends. Keyboard-only throughout.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/lib/code-server.mjs';
import { screenshotPath } from './workbench';
import { loadPanel, sessionFixture } from './webview-harness';

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
});

type Win = { __sent: WebviewToHost[]; __state: unknown };

async function post(page: Page, ...messages: HostToWebview[]): Promise<void> {
  await page.evaluate((ms) => ms.forEach((data) => window.dispatchEvent(new MessageEvent('message', { data }))), messages);
}
const sent = (page: Page) => page.evaluate(() => (window as unknown as Win).__sent);
const lastSent = async (page: Page) => (await sent(page)).at(-1);

async function freshPanel(messages = 6, width = 420): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 800 } });
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
  await loadPanel(page);
  await post(page, sessionFixture(messages).snapshot);
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

describe('the panel UI, driven by protocol messages (Chromium, keyboard only)', () => {
  it('sends a prompt on Enter, keeps Shift+Enter as a newline, and shows Stop while a turn runs', async () => {
    const page = await freshPanel(0);
    try {
      const box = page.getByRole('textbox', { name: 'Message to Headroom' });
      await box.focus();
      await page.keyboard.type('first line');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('second line');
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'prompt/submit', text: 'first line\nsecond line' });
      assert.equal(await box.inputValue(), '');
      await post(page, { type: 'turn/state', running: true });
      const stop = page.getByRole('button', { name: 'Stop the running turn' });
      await stop.waitFor();
      await stop.focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'prompt/stop' });
      await post(page, { type: 'turn/state', running: false });
      await stop.waitFor({ state: 'hidden' });
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer');
      assert.ok(true, 'focus returned to the prompt box after Stop');
    } finally {
      await page.close();
    }
  });

  it('queues what is typed while the agent works (steering), shows it until taken, and gives it back on Stop', async () => {
    const page = await freshPanel(0);
    try {
      await post(page, { type: 'turn/state', running: true });
      const box = page.getByRole('textbox', { name: 'Message to Headroom' });
      await box.focus();
      await page.keyboard.type('also update the README');
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'prompt/submit', text: 'also update the README' });
      const queue = page.locator('[data-testid=queue]');
      await queue.locator('li', { hasText: 'also update the README' }).waitFor();
      await page.screenshot({ path: screenshotPath('panel-queued-message') });
      // The agent takes it at its next step: its user item arrives and the queue empties.
      await post(page, { type: 'chat/ops', ops: [{ op: 'append', item: { kind: 'user', id: 'u9', text: 'also update the README' } }] });
      await queue.waitFor({ state: 'hidden' });
      await box.focus();
      await page.keyboard.type('and the CHANGELOG');
      await page.getByRole('button', { name: 'Send: queue the message for the running turn' }).click();
      await queue.locator('li', { hasText: 'and the CHANGELOG' }).waitFor();
      await page.getByRole('button', { name: 'Stop the running turn' }).click();
      assert.deepEqual(await lastSent(page), { type: 'prompt/stop' });
      await queue.waitFor({ state: 'hidden' });
      assert.equal(await box.inputValue(), 'and the CHANGELOG', 'a queued message dropped by Stop is back in the box');
    } finally {
      await page.close();
    }
  });

  it('stops the running turn with Escape, unless Escape is closing the slash-command list', async () => {
    const page = await freshPanel(0);
    try {
      await post(page, { type: 'turn/state', running: true });
      await page.locator('[data-testid=chat]').focus();
      await page.keyboard.press('Escape');
      assert.deepEqual(await lastSent(page), { type: 'prompt/stop' });
      const before = (await sent(page)).length;
      const box = page.getByRole('textbox', { name: 'Message to Headroom' });
      await box.focus();
      await page.keyboard.type('/co');
      await page.locator('#hr-completions').waitFor();
      await page.keyboard.press('Escape');
      assert.equal((await sent(page)).length, before, 'the first Escape only closed the list');
      await post(page, { type: 'turn/state', running: false });
      await page.keyboard.press('Escape');
      assert.equal((await sent(page)).length, before, 'no stop when nothing runs');
    } finally {
      await page.close();
    }
  });

  it('focuses and announces a new approval, but never takes focus from a draft being typed', async () => {
    const page = await freshPanel(0);
    try {
      const approval = (id: string, path: string) => ({
        kind: 'approval' as const,
        id,
        toolCallId: `c_${id}`,
        toolName: 'edit_file',
        state: 'pending' as const,
        request: { kind: 'edit' as const, path, isNew: true, added: 1, removed: 0 },
      });
      await post(page, { type: 'chat/ops', ops: [{ op: 'append', item: approval('apr_a', 'notes.md') }] });
      await page.waitForFunction(() => document.activeElement?.textContent === 'Approve');
      await page.locator('[data-testid=announcer]', { hasText: 'Approval needed: create notes.md' }).waitFor({ state: 'attached' });
      const box = page.getByRole('textbox', { name: 'Message to Headroom' });
      await box.focus();
      await page.keyboard.type('half a thought');
      await post(page, { type: 'chat/ops', ops: [{ op: 'append', item: approval('apr_b', 'other.md') }] });
      await page.locator('[data-testid=announcer]', { hasText: 'other.md' }).waitFor({ state: 'attached' });
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'composer');
    } finally {
      await page.close();
    }
  });

  it('completes slash commands from the keyboard and sends /compact with its focus', async () => {
    const page = await freshPanel(0);
    try {
      await page.getByRole('textbox', { name: 'Message to Headroom' }).focus();
      await page.keyboard.type('/c');
      const options = page.getByRole('option');
      const texts = await options.allInnerTexts();
      assert.equal(texts.length, 2);
      assert.match(texts[0], /^\/compact \[focus\]/);
      assert.match(texts[1], /^\/clear/);
      await page.keyboard.press('Tab');
      await page.keyboard.type('keep the parser work');
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'context/compact', focus: 'keep the parser work' });
      await page.keyboard.type('/c');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'context/clear' });
    } finally {
      await page.close();
    }
  });

  it('streams markdown with code blocks, batching deltas, and never renders raw HTML from the model', async () => {
    const page = await freshPanel(0);
    try {
      await post(page, { type: 'chat/ops', ops: [{ op: 'append', item: { kind: 'assistant', id: 'a1', text: '', streaming: true } }] });
      const parts = [
        'Here is **the fix**:\n\n',
        '```ts\nconst x = 1;\n',
        '```\n',
        '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>',
      ];
      for (const text of parts) await post(page, { type: 'chat/ops', ops: [{ op: 'delta', id: 'a1', field: 'text', text }] });
      const answer = page.locator('.hr-assistant[data-id="a1"]');
      await answer.locator('pre code').waitFor();
      // textContent: an item may not be laid out yet (content-visibility: auto) when the test reads it.
      assert.equal(await answer.locator('strong').textContent(), 'the fix');
      assert.equal((await answer.locator('pre code').textContent())?.trim(), 'const x = 1;');
      assert.equal(await answer.locator('img, script').count(), 0);
      assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    } finally {
      await page.close();
    }
  });

  it('highlights code blocks in theme colours with a language label, Copy and Insert; tables scroll; task lists keep checkboxes', async () => {
    const page = await browser.newPage({ viewport: { width: 320, height: 700 } });
    page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
    try {
      await loadPanel(page);
      await post(page, sessionFixture(0).snapshot);
      await page.locator('body[data-ready="true"]').waitFor();
      const text = [
        'Plan:',
        '',
        '- [x] read `src/app.ts`',
        '- [ ] fix the test',
        '',
        '```ts',
        'export function add(a: number, b: number): number {',
        '  return a + b; // the sum',
        '}',
        '```',
        '',
        '| file | change | lines |',
        '| --- | --- | --- |',
        '| src/extraordinarily_long_module_name_without_breaks.ts | renamed the exported function | +12 −3 |',
        '',
        '```',
        'plain output',
        '```',
      ].join('\n');
      await post(page, { type: 'chat/ops', ops: [{ op: 'append', item: { kind: 'assistant', id: 'a1', text, streaming: false } }] });
      const answer = page.locator('.hr-assistant[data-id="a1"]');
      const ts = answer.locator('[data-testid="code-block"]').first();
      await ts.locator('code[data-highlighted="true"]').waitFor();
      assert.equal(await ts.locator('.hr-code-lang').textContent(), 'ts');
      assert.ok((await ts.locator('.hljs-keyword').count()) > 0, 'keywords are highlighted');
      assert.ok((await ts.locator('.hljs-comment').count()) > 0, 'comments are highlighted');
      const plain = answer.locator('[data-testid="code-block"]').nth(1);
      assert.equal(await plain.locator('.hr-code-lang').textContent(), 'text');
      assert.equal(await plain.locator('code span').count(), 0, 'an unlabelled block stays plain');

      await ts.getByRole('button', { name: /^Copy/ }).focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), {
        type: 'code/copy',
        text: 'export function add(a: number, b: number): number {\n  return a + b; // the sum\n}\n',
      });
      await ts.getByRole('button', { name: /^Insert/ }).click();
      assert.equal((await lastSent(page))?.type, 'code/insert');

      const boxes = answer.locator('input[type="checkbox"]');
      assert.equal(await boxes.count(), 2);
      assert.equal(await boxes.first().isChecked(), true);
      assert.equal(await boxes.first().isDisabled(), true);
      await page.screenshot({ path: screenshotPath('panel-code-blocks-320') });
      // A word wider than the panel is not broken: the table scrolls sideways in its own box.
      const cell = answer.locator('td').first();
      assert.equal(
        await cell.evaluate(
          (e) =>
            e.getClientRects().length && Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight || '16')),
        ),
        1,
      );
      const wrap = answer.locator('.hr-table-wrap');
      const { scrollWidth, clientWidth } = await wrap.evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
      assert.ok(scrollWidth > clientWidth, `table wider than its box (${scrollWidth} > ${clientWidth})`);
    } finally {
      await page.close();
    }
  });

  it('opens a tool card with the keyboard and asks the host to open an offloaded result', async () => {
    const page = await freshPanel(0);
    try {
      await post(page, {
        type: 'chat/ops',
        ops: [
          {
            op: 'append',
            item: {
              kind: 'tool',
              id: 'c1',
              name: 'read_file',
              summary: 'src/big.ts',
              args: '{"path":"src/big.ts"}',
              status: 'done',
              durationMs: 1250,
              output: '[stored as res_7]',
              refId: 'res_7',
              stored: { bytes: 36_762, lines: 400 },
            },
          },
        ],
      });
      const summary = page.locator('[data-testid=tool-card] summary');
      await summary.waitFor();
      assert.match((await summary.textContent()) ?? '', /read_file\s*src\/big\.ts\s*stored\s*done · 1\.3 s/);
      await summary.focus();
      await page.keyboard.press('Enter');
      assert.equal(
        await page.locator('[data-testid=stored-result]').textContent(),
        'stored · 35.9 KB · 400 lines · kept out of context Open',
      );
      const open = page.getByRole('button', { name: 'Open the full result of read_file in an editor' });
      await open.focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'result/open', refId: 'res_7' });
    } finally {
      await page.close();
    }
  });

  it('approves an edit, rejects a command, and shows the decided state', async () => {
    const page = await freshPanel(0);
    try {
      const edit = {
        kind: 'approval' as const,
        id: 'apr_1',
        toolCallId: 'c1',
        toolName: 'edit_file',
        state: 'pending' as const,
        request: { kind: 'edit' as const, path: 'src/a.ts', isNew: false, added: 3, removed: 1 },
      };
      const cmd = {
        kind: 'approval' as const,
        id: 'apr_2',
        toolCallId: 'c2',
        toolName: 'run_command',
        state: 'pending' as const,
        request: { kind: 'command' as const, command: 'npm test', cwd: '/ws' },
      };
      await post(page, {
        type: 'chat/ops',
        ops: [
          { op: 'append', item: edit },
          { op: 'append', item: cmd },
        ],
      });
      await page.getByRole('button', { name: 'View diff: the proposed change in a diff editor' }).click();
      assert.deepEqual(await lastSent(page), { type: 'approval/diff', id: 'apr_1' });
      await page.getByRole('button', { name: 'Approve the edit' }).focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'approval/respond', id: 'apr_1', approved: true });
      await page.getByRole('button', { name: 'Reject the command' }).click();
      assert.deepEqual(await lastSent(page), { type: 'approval/respond', id: 'apr_2', approved: false });
      await post(page, { type: 'chat/ops', ops: [{ op: 'update', item: { ...edit, state: 'approved' } }] });
      await page.locator('[data-id="apr_1"]', { hasText: 'Approved.' }).waitFor();
      assert.equal(await page.locator('[data-id="apr_1"] button').count(), 0);
    } finally {
      await page.close();
    }
  });

  it('counts down to a retry', async () => {
    const page = await freshPanel(0);
    try {
      const retryAt = await page.evaluate(() => Date.now() + 3_000);
      await post(page, {
        type: 'chat/ops',
        ops: [{ op: 'append', item: { kind: 'notice', id: 'r1', level: 'warning', text: 'Rate limited.', retryAt, attempt: 2 } }],
      });
      const retry = page.locator('.hr-retry');
      assert.match((await retry.textContent()) ?? '', /Retrying in [23] s \(attempt 2\)/);
      await page.waitForFunction(
        () => /Retrying in 1 s|Retrying now/.test(document.querySelector('.hr-retry')?.textContent ?? ''),
        undefined,
        { timeout: 5_000 },
      );
    } finally {
      await page.close();
    }
  });

  it('exposes the meter to keyboard and screen readers: value, breakdown on focus, Compact and Clear', async () => {
    const page = await freshPanel(6);
    try {
      const bar = page.getByRole('meter', { name: 'Context window' });
      assert.equal(await bar.getAttribute('aria-valuenow'), '63');
      assert.match((await bar.getAttribute('aria-valuetext')) ?? '', /^83\.2k \/ 132k \(63 %\), estimated ±5 %$/);
      const breakdown = page.locator('[data-testid=breakdown]');
      assert.equal(await breakdown.isVisible(), false);
      await bar.focus();
      await breakdown.waitFor();
      assert.match(await breakdown.innerText(), /Messages: 41k[\s\S]*Tool results: 27\.8k[\s\S]*Reserved for the answer/);
      assert.equal(await page.locator('[data-testid=meter-deferred]').textContent(), '4 tools deferred (5.2k tokens saved)');
      assert.equal(await page.locator('.hr-marker').count(), 2);
      // The compact marker says the threshold Details names (both of what the model can take).
      assert.equal(await page.locator('.hr-marker-compact').getAttribute('title'), 'Compacts at 95 %');
      await page.getByRole('button', { name: 'Compact the context now' }).click();
      assert.deepEqual(await lastSent(page), { type: 'context/compact' });
      // Clear is behind Details (it asks first anyway): Tab to Details, Enter, then Clear.
      await page.locator('[data-testid=meter-details] summary').focus();
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: /^Clear the context/ }).click();
      assert.deepEqual(await lastSent(page), { type: 'context/clear' });
      await page.screenshot({ path: screenshotPath('panel-harness-meter-focus') });
    } finally {
      await page.close();
    }
  });

  for (const width of [600, 420, 320]) {
    it(`keeps the chat at least 75 % of an 800 px panel, the meter on one line; Details opens over the chat (${width} px)`, async () => {
      const page = await freshPanel(6, width);
      try {
        const heights = () =>
          page.evaluate(() => ({
            panel: window.innerHeight,
            chat: document.querySelector('.hr-chat')!.getBoundingClientRect().height,
            meter: document.querySelector('[data-testid=meter]')!.getBoundingClientRect().height,
          }));
        const closed = await heights();
        assert.equal(closed.panel, 800);
        assert.ok(closed.chat / closed.panel >= 0.75, `the chat keeps ${closed.chat} of ${closed.panel} px`);
        // The figure, the bar and the buttons: one line, two in a sidebar narrower than ~520 px (a line is ~22 px).
        assert.ok(closed.meter <= (width >= 520 ? 30 : 56), `the meter is ${closed.meter} px high at ${width} px`);
        assert.match(await page.locator('[data-testid=meter-label]').innerText(), /^83\.2k \/ 132k \(63 %\)$/);
        assert.match(await page.locator('[data-testid=meter-until-compact]').innerText(), /^[\d.]+k to compact$/);
        // The rest in plain words behind Details, reached from the keyboard.
        const accuracy = page.locator('[data-testid=meter-accuracy]');
        assert.equal(await accuracy.isVisible(), false, 'how sure the figure is waits behind Details');
        await page.screenshot({ path: screenshotPath(`panel-harness-header-${width}`) });
        const summary = page.locator('[data-testid=meter-details] summary');
        await summary.focus();
        await page.keyboard.press('Enter');
        await accuracy.waitFor();
        assert.equal(await accuracy.innerText(), 'estimated ±5 %');
        assert.equal(await page.locator('[data-testid=meter-share]').innerText(), '63 % of the 132k this model can take');
        assert.match(await page.locator('[data-testid=meter-cache]').innerText(), /^87 % of the last request read from cache$/);
        assert.match(
          await page.locator('[data-testid=meter-details] dl').innerText(),
          /Thresholds\s+note 80 % .*compact 95 % .*of the 132k this model can take/,
        );
        const open = await heights();
        assert.equal(open.chat, closed.chat, 'the card lies over the chat: the chat keeps its height');
        await page.screenshot({ path: screenshotPath(`panel-harness-details-${width}`) });
        // Escape closes the card (and does not stop anything), back on Details.
        await page.keyboard.press('Escape');
        await accuracy.waitFor({ state: 'hidden' });
        assert.equal(await summary.evaluate((el) => el === document.activeElement), true);
        assert.equal(
          (await sent(page)).some((m) => m.type === 'prompt/stop'),
          false,
        );
      } finally {
        await page.close();
      }
    });
  }

  it('shows "freed" after a compaction for a while, and the loop breaker reason', async () => {
    const page = await freshPanel(0);
    try {
      const { snapshot } = sessionFixture(0);
      const meter = snapshot.type === 'session/snapshot' ? snapshot.snapshot.meter! : undefined!;
      const now = await page.evaluate(() => Date.now());
      await post(page, {
        type: 'context/usage',
        meter: { ...meter, freed: { label: 'freed 117k', at: now }, pausedReason: 'the last two compactions freed less than 10 %' },
      });
      assert.equal(await page.locator('[data-testid=meter-freed]').innerText(), 'freed 117k');
      assert.match(await page.locator('[data-testid=meter-paused]').innerText(), /Auto-compaction paused: the last two compactions/);
      await post(page, { type: 'context/usage', meter: { ...meter, freed: { label: 'freed 117k', at: now - 61_000 } } });
      assert.equal(await page.locator('[data-testid=meter-freed]').count(), 0);
    } finally {
      await page.close();
    }
  });

  it('manages history: open, rename, delete with confirmation, and the rewind points of the current session', async () => {
    const page = await freshPanel(6);
    try {
      await page.getByRole('button', { name: 'Session history and snapshots' }).click();
      const asked = await lastSent(page);
      assert.ok(asked?.type === 'request' && asked.method === 'session/list', JSON.stringify(asked));
      // The answer to that request, by its id (the history view awaits it).
      await post(page, {
        type: 'reply',
        id: asked.id,
        result: {
          history: {
            sessions: [
              { id: 's1', title: 'Parser fixes', date: '22 Nov 2026, 10:41', messageCount: 42, size: '1.2 MB', current: true },
              { id: 's2', title: 'Old work', date: '21 Nov 2026, 09:00', messageCount: 7, size: '20 KB', current: false },
            ],
            timeline: [
              {
                id: 'cmp0',
                kind: 'compaction',
                title: 'Compacted: 85k → 22k tokens',
                date: '22 Nov 2026, 10:30',
                detail: '40 messages became 5 messages.',
                restores: 'Undo gives the model the 40 messages it had before (85k tokens).',
                action: { type: 'compaction/undo' },
              },
              {
                id: 'cp3',
                kind: 'checkpoint',
                title: 'Before “rename the parser”',
                date: '22 Nov 2026, 10:20',
                detail: 'Turn 3 changed 1 file: src/parser.ts',
                restores: 'Restore puts src/parser.ts back as they were before this turn and rewinds the conversation to before it.',
                action: { type: 'checkpoint/restore', turn: 3 },
              },
            ],
          },
        },
      });
      const history = page.locator('[data-testid=history]');
      assert.match(await history.innerText(), /Parser fixes \(current\)\s+22 Nov 2026, 10:41 · 42 messages · 1\.2 MB/);
      await page.getByRole('button', { name: 'Open session Old work' }).click();
      assert.deepEqual(await lastSent(page), { type: 'session/open', id: 's2' });
      await page.getByRole('button', { name: 'Rename session Old work' }).click();
      const title = page.getByRole('textbox', { name: 'New title for Old work' });
      await title.fill('Older work');
      await title.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'session/rename', id: 's2', title: 'Older work' });
      await page.getByRole('button', { name: 'Delete session Old work' }).click();
      assert.notEqual((await lastSent(page))?.type, 'session/delete');
      await page.getByRole('button', { name: 'Confirm deleting session Old work' }).click();
      assert.deepEqual(await lastSent(page), { type: 'session/delete', id: 's2' });
      await page.getByRole('textbox', { name: 'Snapshot name' }).fill('before refactor');
      await page.getByRole('button', { name: 'Save a snapshot of the current context' }).click();
      assert.deepEqual(await lastSent(page), { type: 'snapshot/save', name: 'before refactor' });
      // One timeline inside the current session, newest first; Undo acts at once, Restore asks first.
      const points = page.locator('[data-testid=rewind-point]');
      assert.deepEqual(await points.locator('.hr-point-title').allTextContents(), [
        'Compacted: 85k → 22k tokens',
        'Before “rename the parser”',
      ]);
      await page.getByRole('button', { name: /^Undo: Compacted/ }).click();
      assert.deepEqual(await lastSent(page), { type: 'compaction/undo' });
      await page.getByRole('button', { name: /^Restore: Before “rename the parser”/ }).click();
      assert.notEqual((await lastSent(page))?.type, 'checkpoint/restore');
      await page.getByRole('button', { name: /^Confirm: Restore puts src\/parser\.ts back/ }).click();
      assert.deepEqual(await lastSent(page), { type: 'checkpoint/restore', turn: 3 });
      assert.equal(await page.getByText('Undo of the last compaction').count(), 0);
      await page.screenshot({ path: screenshotPath('panel-harness-history') });
    } finally {
      await page.close();
    }
  });

  it('keeps what is typed and the focus in the history view when a refresh re-renders it', async () => {
    const page = await freshPanel(6);
    try {
      const answerHistory = async () => {
        const asked = await lastSent(page);
        assert.ok(asked?.type === 'request' && asked.method === 'session/list', JSON.stringify(asked));
        const session = (id: string, title: string, current: boolean) => ({
          id,
          title,
          date: '22 Nov 2026',
          messageCount: 4,
          size: '2 KB',
          current,
        });
        await post(page, {
          type: 'reply',
          id: asked.id,
          result: { history: { sessions: [session('s1', 'Parser fixes', true), session('s2', 'Old work', false)], timeline: [] } },
        });
      };
      await page.getByRole('button', { name: 'Session history and snapshots' }).click();
      await answerHistory();
      const name = page.getByRole('textbox', { name: 'Snapshot name' });
      await name.pressSequentially('before');
      // A turn ends elsewhere: the host sends a new snapshot and the view asks for the history again.
      await post(page, sessionFixture(6).snapshot);
      await answerHistory();
      assert.equal(await name.inputValue(), 'before', 'the half-typed name survives the refresh');
      assert.equal(await name.evaluate((el) => el === document.activeElement), true, 'and keeps the focus');
      await page.keyboard.type(' refactor');
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'snapshot/save', name: 'before refactor' });
      assert.equal(await name.inputValue(), '', 'a saved name is not offered again');
      // From the keyboard, Delete asks again, and the focus moves onto that question rather than to nowhere.
      await page.getByRole('button', { name: 'Delete session Old work' }).focus();
      await page.keyboard.press('Enter');
      const confirm = page.getByRole('button', { name: 'Confirm deleting session Old work' });
      assert.equal(await confirm.evaluate((el) => el === document.activeElement), true);
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'session/delete', id: 's2' });
    } finally {
      await page.close();
    }
  });

  it('offers a first-run setup when no API key is set, with no dead ends', async () => {
    const page = await browser.newPage({ viewport: { width: 420, height: 800 } });
    try {
      await loadPanel(page);
      await post(page, sessionFixture(0, false).snapshot);
      await page.locator('[data-testid=first-run]').waitFor();
      assert.equal(await page.getByRole('textbox', { name: 'Message to Headroom' }).isDisabled(), true);
      await page.getByRole('combobox', { name: 'Provider' }).selectOption('openai-compatible');
      assert.deepEqual(await lastSent(page), { type: 'config/update', provider: 'openai-compatible' });
      await page.getByRole('textbox', { name: 'Base URL' }).fill('http://localhost:11434/v1');
      await page.getByRole('textbox', { name: 'Base URL' }).press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'config/update', baseUrl: 'http://localhost:11434/v1' });
      await page.getByRole('button', { name: 'Set API Key…' }).click();
      assert.deepEqual(await lastSent(page), { type: 'command/run', command: 'setApiKey' });
      await page.screenshot({ path: screenshotPath('panel-harness-first-run') });
    } finally {
      await page.close();
    }
  });

  it('sets up a local server by its address, with the key a link for the servers that ask for one (320 px)', async () => {
    const page = await browser.newPage({ viewport: { width: 320, height: 700 } });
    page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
    try {
      await loadPanel(page);
      const { snapshot } = sessionFixture(0, false);
      assert.equal(snapshot.type, 'session/snapshot');
      const config = { ...snapshot.snapshot.config, provider: 'openai-compatible', model: 'llama3.1' };
      await post(page, { ...snapshot, snapshot: { ...snapshot.snapshot, config } });
      const setup = page.locator('[data-testid=first-run][data-endpoint=server]');
      await setup.waitFor();
      assert.equal(
        await page.getByRole('textbox', { name: 'Message to Headroom' }).getAttribute('placeholder'),
        'Save the server address above to start chatting.',
      );
      // The address is the step; Save URL is the primary button, Set API Key… a link after Test connection.
      const save = page.getByRole('button', { name: 'Save URL: the base URL above' });
      const key = page.getByRole('button', { name: 'Set API Key…' });
      assert.equal(await save.getAttribute('class'), null, 'Save URL is the primary button');
      assert.equal(await key.getAttribute('class'), 'hr-link', 'Set API Key… is a link, not a button');
      const top = async (l: typeof save) => (await l.boundingBox())!.y;
      const test = page.getByRole('button', { name: 'Test connection' });
      assert.ok((await top(save)) < (await top(test)) && (await top(test)) < (await top(key)), 'address, check, then the optional key');
      assert.ok(await setup.evaluate((e) => e.scrollWidth <= e.clientWidth), 'nothing wider than 320 px');
      await page.getByRole('textbox', { name: 'Base URL' }).fill('http://localhost:8080/v1');
      await save.click();
      assert.deepEqual(await lastSent(page), { type: 'config/update', baseUrl: 'http://localhost:8080/v1' });
      await page.screenshot({ path: screenshotPath('panel-first-run-server-320') });
    } finally {
      await page.close();
    }
  });

  it('follows the newest message after a long session loads, unless the user scrolled up', async () => {
    const page = await freshPanel(120);
    try {
      const chat = page.locator('[data-testid=chat]');
      const gap = () => chat.evaluate((e) => e.scrollHeight - e.scrollTop - e.clientHeight);
      const settled = () =>
        page.waitForFunction(
          () => {
            const e = document.querySelector('[data-testid=chat]')!;
            return e.scrollHeight - e.scrollTop - e.clientHeight < 40;
          },
          undefined,
          { timeout: 2_000 },
        );
      await settled();
      await post(page, {
        type: 'chat/ops',
        ops: [{ op: 'append', item: { kind: 'assistant', id: 'new1', text: 'A new answer\n\n'.repeat(20), streaming: false } }],
      });
      await page.locator('[data-id="new1"]').waitFor();
      await page.waitForTimeout(300); // the new item renders lazily and grows after a frame or two
      assert.ok((await gap()) < 40, `still at the bottom after a new message (gap ${await gap()})`);
      await chat.evaluate((e) => {
        e.scrollTop = 0;
      });
      await page.waitForTimeout(50);
      await post(page, { type: 'chat/ops', ops: [{ op: 'append', item: { kind: 'user', id: 'new2', text: 'another' } }] });
      await page.locator('[data-id="new2"]').waitFor({ state: 'attached' });
      assert.equal(await chat.evaluate((e) => e.scrollTop), 0, 'the reading position is kept');
      // …and a button says something arrived below; it takes the user there and follows again.
      const jump = page.getByRole('button', { name: 'New activity below: scroll to the newest message' });
      await jump.waitFor();
      await page.screenshot({ path: screenshotPath('panel-new-activity') });
      await jump.click();
      await settled();
      await jump.waitFor({ state: 'hidden' });
      // Sending jumps to the newest message even from far up.
      await chat.evaluate((e) => {
        e.scrollTop = 0;
      });
      await page.getByRole('textbox', { name: 'Message to Headroom' }).fill('go on');
      await page.keyboard.press('Enter');
      await settled();
    } finally {
      await page.close();
    }
  });

  it('keeps the reading place when new items overtake the scroll event, or heights changed since it followed', async () => {
    const page = await freshPanel(40);
    try {
      const chat = page.locator('[data-testid=chat]');
      const jump = page.getByRole('button', { name: 'New activity below: scroll to the newest message' });
      const atEnd = () =>
        page.waitForFunction(() => {
          const e = document.querySelector('[data-testid=chat]')!;
          return e.scrollHeight - e.scrollTop - e.clientHeight < 40;
        });
      await atEnd();
      // A busy machine: the new item arrives before the frame that dispatches the user's scroll event
      // (here the event never reaches the list at all), so the list must read where the user is.
      await page.evaluate(() => {
        document.addEventListener('scroll', (e) => e.stopImmediatePropagation(), { capture: true, once: true });
        document.querySelector('[data-testid=chat]')!.scrollTop = 0;
        const data = { type: 'chat/ops', ops: [{ op: 'append', item: { kind: 'user', id: 'race1', text: 'arrived first' } }] };
        window.dispatchEvent(new MessageEvent('message', { data }));
      });
      await page.locator('[data-id="race1"]').waitFor({ state: 'attached' });
      await jump.waitFor();
      assert.equal(await chat.evaluate((e) => e.scrollTop), 0, 'the reading position is kept');
      await jump.click();
      await jump.waitFor({ state: 'hidden' });
      await atEnd();
      // The user opens a tool card: the list is taller than when it last followed. Scrolling up from
      // there is still the user's (waited for: the list has seen the scroll event).
      const height = await chat.evaluate((e) => e.scrollHeight);
      await page.locator('[data-testid=tool-card] summary').last().click();
      await page.waitForFunction((h) => document.querySelector('[data-testid=chat]')!.scrollHeight !== h, height);
      await chat.evaluate(
        (e) =>
          new Promise<void>((resolve) => {
            e.addEventListener('scroll', () => resolve(), { once: true });
            e.scrollTop = 0;
          }),
      );
      await post(page, { type: 'chat/ops', ops: [{ op: 'append', item: { kind: 'user', id: 'race2', text: 'after the resize' } }] });
      await page.locator('[data-id="race2"]').waitFor({ state: 'attached' });
      await jump.waitFor();
      assert.equal(await chat.evaluate((e) => e.scrollTop), 0, 'the reading position is kept after the card opened');
    } finally {
      await page.close();
    }
  });

  it('restores the draft, scroll position and expanded cards after the webview is hidden and shown again', async () => {
    const page = await freshPanel(60);
    try {
      await page.locator('[data-testid=chat]').evaluate((el) => {
        el.scrollTop = 120;
        el.dispatchEvent(new Event('scroll'));
      });
      await page.getByRole('textbox', { name: 'Message to Headroom' }).fill('half-written prompt');
      await page.getByRole('textbox', { name: 'Message to Headroom' }).dispatchEvent('input');
      await page.locator('[data-testid=tool-card] summary').first().click();
      await page.waitForFunction(() => (window as unknown as Win).__state !== undefined);
      await page.waitForTimeout(300);
      const saved = await page.evaluate(() => (window as unknown as Win).__state);
      // A new webview document, as VS Code creates when the view is shown again, with the saved state.
      await loadPanelWithState(page, saved);
      await post(page, sessionFixture(60).snapshot);
      assert.equal(await page.getByRole('textbox', { name: 'Message to Headroom' }).inputValue(), 'half-written prompt');
      // The position the panel saved for the user (about 120: lazily laid-out items can move it a little
      // before it is saved), not the bottom, and exactly that position back.
      const savedTop = (saved as { scrollTop?: number | null }).scrollTop;
      assert.ok(typeof savedTop === 'number' && savedTop >= 100, `a scrolled-up position was saved (${String(savedTop)})`);
      assert.equal(await page.locator('[data-testid=chat]').evaluate((el) => el.scrollTop), savedTop);
      assert.equal(await page.locator('[data-testid=tool-card][open]').count(), 1);
    } finally {
      await page.close();
    }
  });
});

async function loadPanelWithState(page: Page, state: unknown): Promise<void> {
  await loadPanel(page, state);
}

describe('panel error blocks and approvals in the harness (Chromium)', () => {
  it('offers the next step of a failure: Retry asks the host to run the failed turn again, Settings opens settings, the server is named', async () => {
    const page = await freshPanel(0);
    try {
      await post(page, {
        type: 'chat/ops',
        ops: [
          {
            op: 'append',
            item: {
              kind: 'notice',
              id: 'e1',
              level: 'error',
              title: 'Headroom could not reach the model server.',
              text: 'Connection to the provider failed: ECONNREFUSED',
              actions: ['retry', 'openSettings'],
              unreachable: true,
            },
          },
        ],
      });
      const block = page.locator('.hr-notice-error');
      await block.waitFor();
      // textContent: a chat item may not be laid out yet (content-visibility: auto), and innerText is then ''.
      assert.match((await block.textContent()) ?? '', /Server: the provider’s default address/);
      await page.screenshot({ path: screenshotPath('panel-error-block') });
      // Retry names no prompt: the host resumes the failed turn it kept, so the prompt is never sent twice
      // (that the turn really runs again is proven against the host in panel-errors.e2e.test.ts and
      // test/unit/agent-retry.test.ts).
      await block.getByRole('button', { name: 'Retry' }).click();
      assert.deepEqual(await lastSent(page), { type: 'prompt/retry' });
      await block.getByRole('button', { name: 'Settings' }).click();
      assert.deepEqual(await lastSent(page), { type: 'command/run', command: 'openSettings' });
    } finally {
      await page.close();
    }
  });

  it('answers an approval for the session, or rejects it with a reason for the model', async () => {
    const page = await freshPanel(0);
    try {
      const approval = (id: string, command: string) => ({
        kind: 'approval' as const,
        id,
        toolCallId: `c_${id}`,
        toolName: 'run_command',
        state: 'pending' as const,
        request: { kind: 'command' as const, command, cwd: '.' },
      });
      await post(page, {
        type: 'chat/ops',
        ops: [
          { op: 'append', item: approval('apr_1', 'npm test') },
          { op: 'append', item: approval('apr_2', 'rm -rf build') },
        ],
      });
      const first = page.locator('[data-id="apr_1"]');
      await first.waitFor();
      assert.match((await first.textContent()) ?? '', /in the workspace folder/);
      await page.screenshot({ path: screenshotPath('panel-approval-pending') });
      await first.getByRole('button', { name: 'Allow for this session' }).click();
      assert.deepEqual(await lastSent(page), { type: 'approval/respond', id: 'apr_1', approved: true, forSession: true });
      const second = page.locator('[data-id="apr_2"]');
      await second.getByRole('textbox', { name: /Reason for rejecting/ }).fill('use the clean script instead');
      await second.getByRole('textbox', { name: /Reason for rejecting/ }).press('Enter');
      assert.deepEqual(await lastSent(page), {
        type: 'approval/respond',
        id: 'apr_2',
        approved: false,
        reason: 'use the clean script instead',
      });
    } finally {
      await page.close();
    }
  });
});
