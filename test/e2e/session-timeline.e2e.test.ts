/// <reference lib="dom" />
/**
 * History's one timeline in a real VS Code (code-server), in Dark, Light, High Contrast and a 320 px
 * side bar: the real host answers the History view for its own session, then a session with a
 * checkpoint, two compactions (the newest undoable), a clear that can no longer be undone and a saved
 * snapshot is shown, as the host maps it (`toHistoryView`). One list inside the current session,
 * newest first, each entry saying what restoring it does; Undo and Restore only where they can act;
 * readable in every theme; nothing spills sideways at 320 px.
 */
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import type { RewindPoint } from '../../src/app/rewind-points';
import { toHistoryView } from '../../src/panel/history-view';
import type { HostToWebview } from '../../src/protocol/messages';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { textContrast } from './contrast';
import {
  assertNoSidewaysSpill,
  fakeProviderSettings,
  inject,
  narrowSidebar,
  openHeadroomView,
  openWorkbench,
  screenshotPath,
  type Theme,
} from './workbench';

const HOUR = 3_600_000;
const NOW = 1_764_230_400_000;

const TIMELINE: RewindPoint[] = [
  {
    kind: 'checkpoint',
    at: NOW - 5 * HOUR,
    turn: 2,
    prompt: 'Rename parse() to parseCsv() and update its callers',
    files: ['src/parse.ts', 'src/cli.ts', 'test/parse.test.ts', 'README.md'],
  },
  {
    kind: 'compaction',
    at: NOW - 4 * HOUR,
    beforeMessages: 48,
    afterMessages: 6,
    beforeTokens: 94_200,
    afterTokens: 21_800,
    restorable: false,
  },
  { kind: 'snapshot', at: NOW - 3 * HOUR, id: 'snap_e2e', name: 'before the quoted-fields work', messages: 9 },
  { kind: 'clear', at: NOW - 2 * HOUR, messages: 11, restorable: false },
  { kind: 'checkpoint', at: NOW - HOUR, turn: 7, prompt: 'Handle quoted fields', files: ['src/parse.ts'] },
  {
    kind: 'compaction',
    at: NOW - 600_000,
    beforeMessages: 14,
    afterMessages: 3,
    beforeTokens: 30_500,
    afterTokens: 6_100,
    restorable: true,
  },
];

function historyFixture(sessionId: string): HostToWebview {
  return {
    type: 'history/list',
    history: toHistoryView(
      {
        sessions: [
          { id: sessionId, title: 'CSV parser', createdAt: NOW - 6 * HOUR, updatedAt: NOW, messageCount: 64, bytes: 512_000 },
          { id: 'ses_other', title: 'Older work', createdAt: NOW - 48 * HOUR, updatedAt: NOW - 47 * HOUR, messageCount: 12, bytes: 40_960 },
        ],
        snapshots: [],
        currentSessionId: sessionId,
        canUndoCompaction: true,
        timeline: TIMELINE,
      },
      (ms) => new Date(ms).toISOString().slice(11, 16),
    ),
  };
}

const variants: Array<{ name: string; theme: Theme; sidebar?: number }> = [
  { name: 'dark', theme: 'Default Dark Modern' },
  { name: 'light', theme: 'Default Light Modern' },
  { name: 'hc', theme: 'Default High Contrast' },
  { name: '320', theme: 'Default Dark Modern', sidebar: 320 },
];

describe('history in a real VS Code: one timeline of rewind points inside the session', function () {
  this.timeout(300_000);
  let fake: FakeProvider;
  before(async () => {
    fake = await startFakeProvider();
  });
  after(async () => {
    await fake?.close();
  });

  async function readable(frame: Frame, selector: string, label: string): Promise<void> {
    const ratio = await textContrast(frame, selector);
    assert.ok(ratio >= 4.5, `${selector} contrast ${ratio.toFixed(2)}:1 (${label})`);
  }

  for (const v of variants) {
    it(`shows sessions and, inside the current one, its rewind points newest first (${v.name})`, async () => {
      const { page, webviewProblems } = await openWorkbench(v.theme, fakeProviderSettings(fake, 32_000, 4_000));
      try {
        const frame = await openHeadroomView(page);
        await frame.getByRole('textbox', { name: 'Message to Headroom' }).waitFor();
        if (v.sidebar) await narrowSidebar(page, v.sidebar);
        await frame.getByRole('button', { name: 'Session history and snapshots' }).click();
        // The real host's answer first: its current session gets a timeline (empty: nothing happened yet).
        const timeline = frame.locator('[data-testid=timeline]');
        await timeline.waitFor({ timeout: 30_000 });
        const current = await frame.locator('.hr-session', { has: timeline }).getAttribute('data-id');
        assert.ok(current, 'the timeline sits inside the current session');
        await inject(frame, historyFixture(current));
        const points = frame.locator('[data-testid=rewind-point]');
        await points.first().waitFor();
        assert.deepEqual(await points.locator('.hr-point-title').allTextContents(), [
          'Compacted: 30.5k → 6.1k tokens',
          'Before “Handle quoted fields”',
          'Cleared the context',
          'Snapshot “before the quoted-fields work”',
          'Compacted: 94.2k → 21.8k tokens',
          'Before “Rename parse() to parseCsv() and update its callers”',
        ]);
        // What each does, in words; buttons only where restoring can act now.
        assert.deepEqual(
          await points.evaluateAll((rows) =>
            rows.map((r) => Array.from(r.querySelectorAll<HTMLButtonElement>('button'), (b) => b.textContent ?? '')),
          ),
          [['Undo'], ['Restore'], [], ['Restore'], [], ['Restore']],
        );
        const words = await points.locator('.hr-point-restores').allTextContents();
        assert.equal(words[0], 'Undo gives the model the 14 messages it had before (30.5k tokens).');
        assert.match(words[1], /^Restore puts src\/parse\.ts back as it was before this turn and rewinds the conversation/);
        assert.match(words[2], /^Can no longer be undone: the conversation went on after it\./);
        assert.match(words[5], /^Restore puts these 4 files back/);
        const all = (await frame.locator('[data-testid=history]').textContent()) ?? '';
        assert.doesNotMatch(all, /Undo of the last compaction|0 messages/, 'no entry that restores nothing');
        // A Restore that rewinds asks once more, in the same words.
        await points
          .nth(1)
          .getByRole('button', { name: /^Restore: Before “Handle quoted fields”/ })
          .click();
        await points
          .nth(1)
          .getByRole('button', { name: /^Confirm: Restore puts src\/parse\.ts back/ })
          .waitFor();
        for (const sel of ['.hr-point-title', '.hr-point .hr-muted', '.hr-point-restores'])
          await readable(frame, `[data-testid=timeline] ${sel}`, v.name);
        await page.mouse.move(5, 5); // no hover tooltip over the panel
        await assertNoSidewaysSpill(frame, `history timeline (${v.name})`);
        await page.screenshot({ path: screenshotPath(`history-timeline-${v.name}`) });
        assert.deepEqual(webviewProblems, []);
      } catch (err) {
        await page.screenshot({ path: screenshotPath(`failure-history-timeline-${v.name}`) }).catch(() => {});
        throw err;
      } finally {
        await page.close();
      }
    });
  }
});
