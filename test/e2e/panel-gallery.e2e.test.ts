/// <reference lib="dom" />
/**
 * The panel's states, each in Dark Modern, Light Modern, High Contrast and in a
 * 320 px sidebar, in a real VS Code: the running compaction row with Cancel (controls disabled), the
 * compaction card with its summary and "What left the context" over the divider and summary card, an
 * approval waiting for the user next to an error block, code / table / task list and a stored result, and
 * the "New activity" button. The behaviour of each is tested elsewhere (panel-compaction, panel-errors,
 * panel-ui); this suite checks what a user would see in every theme and width: nothing spills sideways,
 * text is readable (WCAG contrast ≥ 4.5:1, computed from the painted colours), every button is visible.
 * Screenshots: test-results/e2e/gallery-<state>-<variant>.png.
 */
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import type { ChatItem, HostToWebview } from '../../src/protocol/messages';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { textContrast } from './contrast';
import { sessionFixture } from './webview-harness';
import {
  assertNoSidewaysSpill,
  fakeProviderSettings,
  inject,
  narrowSidebar,
  openHeadroomView,
  openWorkbench,
  runPaletteCommand,
  screenshotPath,
  type Theme,
} from './workbench';

const append = (...items: ChatItem[]): HostToWebview => ({ type: 'chat/ops', ops: items.map((item) => ({ op: 'append', item })) });

async function assertReadable(frame: Frame, selectors: string[], label: string): Promise<void> {
  for (const sel of selectors) {
    const ratio = await textContrast(frame, sel);
    assert.ok(ratio >= 4.5, `${label}: ${sel} has contrast ${ratio.toFixed(2)}:1`);
  }
}

const SUMMARY = [
  '## Done',
  '- `src/parse.ts`: `parse()` accepts a trailing comma (turn 4)',
  '- `npm test` passes: 42 passing (exit 0)',
  '## Next',
  '- [ ] handle quoted fields',
].join('\n');

const COMPACTION: ChatItem = {
  kind: 'compaction',
  id: 'cmp_g1',
  text: 'Compacted: 94.2k → 21.8k tokens, freed 72.4k. Took 4.2 s, cost $0.012.',
  freedTokens: 72_400,
  durationMs: 4_200,
  cost: 0.0123,
  kept: 'kept: summary + last 2 turns',
  summary: SUMMARY,
  canUndo: true,
  details: {
    kept: [
      { role: 'user', text: 'now handle quoted fields' },
      { role: 'assistant', text: 'I will start with the tokenizer.' },
    ],
    keptCount: 2,
    summarized: [
      { role: 'user', text: 'make parse() accept a trailing comma' },
      { role: 'tool', text: 'read_file result' },
    ],
    summarizedCount: 38,
    summary: SUMMARY,
    stored: [{ refId: 'res_0f3a9c2d', toolName: 'run_command' }],
    dropped: [],
    droppedCount: 0,
  },
};

const READING = [
  'Here is the fix, with the table of results:',
  '',
  '```ts',
  'export function parse(s: string): string[] {',
  "  return s.split(',').map((part) => part.trim()).filter(Boolean);",
  '}',
  '```',
  '',
  '| input | before the fix | after the fix | note about the change |',
  '|---|---|---|---|',
  '| `a,b,` | `["a","b",""]` | `["a","b"]` | trailing comma dropped without an empty field |',
  '| `,` | `["",""]` | `[]` | only separators give an empty list |',
  '',
  '- [x] trailing comma',
  '- [ ] quoted fields',
].join('\n');

const variants: Array<{ name: string; theme: Theme; sidebar?: number }> = [
  { name: 'dark', theme: 'Default Dark Modern' },
  { name: 'light', theme: 'Default Light Modern' },
  { name: 'hc', theme: 'Default High Contrast' },
  { name: '320', theme: 'Default Dark Modern', sidebar: 320 },
];

describe('panel gallery: every state in every theme and at 320 px', function () {
  this.timeout(300_000);
  let fake: FakeProvider;
  before(async () => {
    fake = await startFakeProvider();
  });
  after(async () => {
    await fake?.close();
  });

  for (const v of variants) {
    it(`compaction, approval, error, reading and new-activity states look right (${v.name})`, async () => {
      const { page, webviewProblems } = await openWorkbench(v.theme, fakeProviderSettings(fake, 128_000, 8_000));
      try {
        const frame = await openHeadroomView(page);
        await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
        if (v.sidebar) await narrowSidebar(page, v.sidebar);
        const shot = async (state: string) => {
          await page.mouse.move(5, 5); // no hover tooltip over the panel
          await page.waitForTimeout(250);
          await assertNoSidewaysSpill(frame, `${state} (${v.name})`);
          await page.screenshot({ path: screenshotPath(`gallery-${state}-${v.name}`) });
        };
        const { snapshot } = sessionFixture(8);
        await inject(frame, snapshot);
        await frame.locator('.hr-user').first().waitFor();
        const shownBefore = await frame.locator('.hr-user, .hr-assistant').count();

        // Item 2: compaction is visible while it runs, and the controls say they are blocked.
        await inject(
          frame,
          { type: 'turn/state', running: false, compacting: true },
          append({ kind: 'compacting', id: 'cmping_g1', text: 'Compacting… (summarizing 38 messages)' }),
        );
        const row = frame.locator('[data-testid=compacting]');
        await row.getByRole('button', { name: 'Cancel' }).waitFor();
        assert.match((await row.textContent()) ?? '', /summarizing 38 messages/);
        assert.equal(await frame.locator('[data-testid=send]').isDisabled(), true, 'Send is disabled while compacting');
        await assertReadable(frame, ['.hr-compacting-text'], `compacting row (${v.name})`);
        await shot('compacting');

        // Items 2 and 3: the card in plain words over a divider and the summary card; the transcript stays.
        await inject(
          frame,
          { type: 'chat/ops', ops: [{ op: 'remove', id: 'cmping_g1' }] },
          { type: 'turn/state', running: false, compacting: false },
          append({ kind: 'divider', id: 'div_g1', text: 'Above: no longer in the model’s context' }, COMPACTION, {
            kind: 'summary',
            id: 'sum_g1',
            text: SUMMARY,
            carried: ['Always run the tests before you say it works.'],
          }),
        );
        const card = frame.locator('[data-testid=compaction]');
        await card.locator('summary', { hasText: 'View summary' }).click();
        await card.locator('summary', { hasText: 'What left the context' }).click();
        await card.getByRole('button', { name: 'Open the stored result of run_command' }).waitFor();
        assert.equal(await card.locator('[data-action=undo-compaction]').isEnabled(), true, 'Undo is one click');
        assert.equal(await frame.locator('.hr-user, .hr-assistant').count(), shownBefore, 'the transcript above the divider stays');
        await card.scrollIntoViewIfNeeded();
        await assertReadable(frame, ['.hr-compaction-text', '.hr-compaction-kept', '.hr-divider span'], `compaction card (${v.name})`);
        await shot('compaction-card');

        // Items 4 and 5: an approval waiting for the user, and one error block with its next steps.
        await inject(
          frame,
          append(
            {
              kind: 'tool',
              id: 'call_g1',
              name: 'run_command',
              summary: 'npm test',
              args: '{"command":"npm test"}',
              status: 'waiting',
              output: '',
            },
            {
              kind: 'approval',
              id: 'apr_g1',
              toolCallId: 'call_g1',
              toolName: 'run_command',
              state: 'pending',
              request: { kind: 'command', command: 'npm test -- --grep parse', cwd: 'packages/core' },
            },
            {
              kind: 'notice',
              id: 'err_g1',
              level: 'error',
              title: 'The provider did not accept the API key.',
              text: 'HTTP 401 from http://127.0.0.1:4000/v1/chat/completions',
              actions: ['setApiKey', 'retry'],
            },
          ),
        );
        const approval = frame.locator('[data-testid=approval]');
        for (const name of ['Approve the command', 'Allow for this session: this exact command', 'Reject the command'])
          assert.equal(await approval.getByRole('button', { name }).isVisible(), true, `${name} is visible (${v.name})`);
        assert.match((await approval.textContent()) ?? '', /in packages\/core/);
        const notice = frame.locator('.hr-notice-error');
        assert.deepEqual(await notice.locator('button').allTextContents(), ['Set API Key…', 'Retry']);
        await approval.scrollIntoViewIfNeeded();
        await assertReadable(frame, ['.hr-notice-error .hr-notice-title', '.hr-notice-error .hr-notice-text'], `error block (${v.name})`);
        await shot('approval-error');

        // Items 7 and 8: highlighted code with its language and Copy, a table that scrolls inside itself,
        // task-list checkboxes, and a stored result shown as such.
        await inject(
          frame,
          {
            type: 'chat/ops',
            ops: [
              { op: 'remove', id: 'apr_g1' },
              { op: 'remove', id: 'err_g1' },
              { op: 'remove', id: 'call_g1' },
            ],
          },
          append(
            {
              kind: 'tool',
              id: 'call_g2',
              name: 'run_command',
              summary: 'npm test',
              args: '{"command":"npm test"}',
              status: 'done',
              durationMs: 8_400,
              output: '> parse@1.0.0 test\n> mocha\n\n  42 passing (1s)\n',
              refId: 'res_7d1e0b44',
              stored: { bytes: 36_762, lines: 400 },
            },
            { kind: 'assistant', id: 'as_g2', text: READING, streaming: false },
          ),
        );
        const answer = frame.locator('.hr-assistant').last();
        await answer.locator('table').waitFor();
        await answer.locator('pre').first().scrollIntoViewIfNeeded();
        await answer.locator('code[data-highlighted="true"]').waitFor({ timeout: 10_000 });
        assert.ok((await answer.locator('.hljs-keyword').count()) > 0, 'the code block is highlighted');
        assert.equal(await answer.locator('input[type=checkbox]').count(), 2, 'task list items keep their checkboxes');
        assert.match((await frame.locator('[data-testid=stored-result]').last().textContent()) ?? '', /stored · 35\.9 KB · 400 lines/);
        await answer.locator('table').scrollIntoViewIfNeeded();
        await shot('reading');

        // Item 6: scrolled up, new activity is announced by a button instead of landing below the fold.
        // Waited for: the list has seen the scroll (a fixed pause was not enough on a busy machine).
        await frame.locator('[data-testid=chat]').evaluate(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.scrollTop === 0) return resolve();
              c.addEventListener('scroll', () => resolve(), { once: true });
              c.scrollTop = 0;
            }),
        );
        await inject(frame, append({ kind: 'assistant', id: 'as_g3', text: 'All 42 tests pass now.', streaming: false }));
        const jump = frame.locator('[data-testid=new-activity]');
        await jump.waitFor({ state: 'visible', timeout: 10_000 });
        await shot('new-activity');
        await jump.click();
        await jump.waitFor({ state: 'hidden', timeout: 10_000 });

        assert.deepEqual(webviewProblems, []);
        // Leave a fresh session behind for the suites after this one (they share the workspace).
        await runPaletteCommand(page, 'Headroom: New Session');
        await frame.locator('[data-testid=session-line]', { hasText: '· 0 in context' }).waitFor({ timeout: 30_000 });
      } finally {
        await page.close();
      }
    });
  }
});
