/// <reference lib="dom" />
/**
 * Compaction as a user sees it, in Chromium: the host's
 * own presenter turns agent events into panel messages, the built panel renders them. The running row
 * with Cancel (Send and Compact wait), the plain-words card with View summary, What left the context
 * and Undo, the divider above the kept turns, and "Work so far". Keyboard only; screenshots in Dark
 * and Light Modern.
 */
import * as assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { AgentEvent } from '../../src/agent/events';
import { WorkLedger } from '../../src/agent/ledger';
import { historyMessage, storedCompactionView } from '../../src/context/compaction';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { toLedgerView } from '../../src/panel/ledger-view';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/lib/code-server.mjs';
import { screenshotPath } from './workbench';
import { LIGHT_VARS, loadPanel, sessionFixture, sessionMessages } from './webview-harness';

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
});

type Win = { __sent: WebviewToHost[] };
const sent = (page: Page) => page.evaluate(() => (window as unknown as Win).__sent);
const lastSent = (page: Page) => page.evaluate(() => (window as unknown as Win).__sent.at(-1));

/** A page showing a 12-message session, wired to a real presenter: `run` forwards what it posts. */
async function panelWithPresenter(light = false) {
  const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
  const posted: HostToWebview[] = [];
  const presenter = new ChatPresenter((m) => posted.push(m));
  const messages = sessionMessages(12);
  presenter.load(messages);
  presenter.setUndoAvailable(true);
  const ledger = new WorkLedger();
  ledger.startTurn();
  ledger.recordFile('src/m0.ts', 'read');
  ledger.recordFile('src/parser.ts', 'modified');
  ledger.recordCommand('npm test', 1, '.');
  ledger.recordError('run_command', 'AssertionError: expected [] to equal [ "a" ]');
  ledger.setPlan([
    { text: 'reproduce the failing test', status: 'done' },
    { text: 'fix parse() for a trailing comma', status: 'in_progress' },
    { text: 'run the whole suite', status: 'open' },
  ]);
  presenter.setLedger(toLedgerView(ledger.toJSON()));
  await loadPanel(page, undefined, light ? LIGHT_VARS : undefined);
  const base = sessionFixture(12).snapshot;
  assert.ok(base.type === 'session/snapshot');
  /** What the host's postSnapshot sends: the static facts plus the presenter's view. */
  const snapshot = () =>
    page.evaluate((data) => window.dispatchEvent(new MessageEvent('message', { data })), {
      ...base,
      snapshot: { ...base.snapshot, ...presenter.view() },
    } as HostToWebview);
  await snapshot();
  await page.locator('body[data-ready="true"]').waitFor();
  const flush = async () => {
    const batch = posted.splice(0);
    await page.evaluate((ms) => ms.forEach((data) => window.dispatchEvent(new MessageEvent('message', { data }))), batch);
  };
  const run = async (...events: AgentEvent[]) => {
    events.forEach((e) => presenter.handle(e));
    await flush();
  };
  return { page, presenter, messages, run, flush, snapshot };
}

describe('compaction in the panel: visible, cancellable, undoable, and what left (Chromium)', () => {
  it('shows the running row with Cancel and holds Send and Compact; then the card, the divider and the view of what left', async () => {
    const { page, messages, run } = await panelWithPresenter();
    try {
      await run({ type: 'compaction_start', trigger: 'manual', summarizing: 6 });
      const row = page.locator('[data-testid=compacting]');
      await row.getByText('Compacting… (summarizing 6 messages)').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Send the message' }).isDisabled(), true, 'Send waits');
      assert.equal(await page.getByRole('button', { name: 'Compact the context now' }).isDisabled(), true, 'Compact waits');
      // Typing goes on; Enter keeps the draft and says, visibly, that it waits for the compaction.
      const box = page.getByRole('textbox', { name: 'Message to Headroom' });
      await box.focus();
      await page.keyboard.type('next question');
      await page.keyboard.press('Enter');
      assert.equal(await box.inputValue(), 'next question');
      const waiting = page.locator('[data-testid=waiting]');
      await waiting.waitFor();
      assert.match((await waiting.textContent()) ?? '', /Sends when the compaction finishes/);
      assert.equal(await waiting.getAttribute('role'), 'status', 'read out by screen readers too');
      await page.screenshot({ path: screenshotPath('compaction-running-dark') });
      const cancel = row.getByRole('button', { name: 'Cancel' });
      await cancel.focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'compaction/cancel' });

      // The host ran it again and it finished: a summary of the first two turns, the last two kept.
      const summary = 'Fixed **parse()** for a trailing comma; `npm test` passes.';
      const after = [historyMessage({ summary, pins: [], instructions: ['Please look at module 0'] }, 1), ...messages.slice(6)];
      await run(
        {
          type: 'compaction_end',
          outcome: 'done',
          change: { before: messages, after, strategies: ['clear_tool_results', 'summary'], summary, storedRefIds: ['res_0'] },
        },
        {
          type: 'compaction',
          report: {
            beforeTokens: 85_000,
            afterTokens: 22_000,
            beforeMessages: 12,
            afterMessages: 7,
            strategies: ['clear_tool_results', 'summary'],
            durationMs: 14_000,
            trigger: 'manual',
            summary,
          },
        },
      );
      await row.waitFor({ state: 'detached' });
      assert.equal(await page.getByRole('button', { name: 'Send the message' }).isDisabled(), false, 'Send is back');
      // The waiting message went as soon as the compaction ended.
      assert.ok(
        (await sent(page)).some((m) => m.type === 'prompt/submit' && m.text === 'next question'),
        'the waiting message is sent when the compaction ends',
      );
      await waiting.waitFor({ state: 'hidden' });
      assert.equal(await box.inputValue(), '');
      const card = page.locator('[data-testid=compaction]');
      await card.getByText('kept: summary + last 2 turns; 1 tool result stored out of context').waitFor();
      assert.doesNotMatch((await card.textContent()) ?? '', /clear_tool_results|drop_oldest/);
      // The chat still shows every earlier message, with the divider above the first kept turn.
      const chat = page.locator('[data-testid=chat]');
      assert.equal(await chat.getByText('Please look at module 0', { exact: false }).count(), 1, 'the first turn is still shown');
      const order = await chat.evaluate((el) =>
        Array.from(el.children).map((c) => (c.matches('[data-testid=divider]') ? 'divider' : (c.textContent ?? '').slice(0, 30))),
      );
      const d = order.indexOf('divider');
      assert.ok(d > 0 && order[d + 1].includes('module 2'), `divider above the kept turns: ${JSON.stringify(order)}`);
      await chat.getByRole('separator', { name: 'above: no longer in the model’s context' }).waitFor();

      // View summary: a collapsible, rendered card (keyboard).
      const viewSummary = card.locator('summary', { hasText: 'View summary' });
      await viewSummary.focus();
      await page.keyboard.press('Enter');
      await card.locator('.hr-md strong', { hasText: 'parse()' }).waitFor();
      // What left the context: kept, summarized (with the summary), stored (openable).
      const what = card.locator('summary', { hasText: 'What left the context' });
      await what.focus();
      await page.keyboard.press('Enter');
      const details = card.locator('[data-testid=compaction-details]');
      await details.getByText('Kept verbatim (6)').waitFor();
      await details.getByText('Summarized (6)').waitFor();
      await details.getByText('Stored out of context (1)').waitFor();
      // Each stored result says what it was: its tool and what the call read, not a bare ref id.
      await details.getByText('read_file src/m0.ts', { exact: true }).waitFor();
      assert.doesNotMatch((await details.textContent()) ?? '', /res_0/);
      const open = details.getByRole('button', { name: 'Open the stored result of read_file src/m0.ts' });
      await open.focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'result/open', refId: 'res_0' });
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath('compaction-card-dark'), fullPage: true });
      // Undo: one click, enabled for the newest compaction.
      const undo = card.getByRole('button', { name: 'Undo' });
      assert.equal(await undo.isDisabled(), false);
      await undo.focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await lastSent(page), { type: 'compaction/undo' });
    } finally {
      await page.close();
    }
  });

  it('a restore from the history keeps the whole chat: back in the chat, the divider and the restored context are in view', async () => {
    const { page, presenter, snapshot } = await panelWithPresenter();
    try {
      await page.getByRole('button', { name: 'Session history and snapshots' }).click();
      await page.locator('[data-testid=history]').waitFor();
      // The host restored a snapshot: the presenter keeps the chat, then the host re-sends the panel.
      const restored = [
        historyMessage({ summary: 'Set up the **parser** work.', pins: [], instructions: ['Please look at module 0'] }, 1),
        ...sessionMessages(3),
      ];
      presenter.continueWith(restored, 'restore');
      await snapshot();
      await page.getByRole('button', { name: 'Back to the chat' }).click();
      const chat = page.locator('[data-testid=chat]');
      const divider = chat.getByRole('separator', { name: 'above: no longer in the model’s context · snapshot restored' });
      await divider.waitFor();
      await chat.locator('[data-testid=summary]', { hasText: 'Summary of the earlier conversation' }).waitFor();
      assert.equal(
        await chat.locator('.hr-user', { hasText: 'Please look at module 0' }).count(),
        2,
        'the earlier turn and the restored one',
      );
      assert.equal(await chat.locator('.hr-user', { hasText: 'Set up the' }).count(), 0, 'the summary is never a user bubble');
      await page.waitForFunction(() => {
        const c = document.querySelector('[data-testid=chat]')!.getBoundingClientRect();
        const s = document.querySelector('[data-testid=summary]')!.getBoundingClientRect();
        return s.bottom > c.top && s.top < c.bottom;
      });
      await page.screenshot({ path: screenshotPath('restore-keeps-chat-dark') });
    } finally {
      await page.close();
    }
  });

  it('"Work so far" lists files, commands with exit codes, errors and the plan; Undo is disabled while a turn runs (Light)', async () => {
    const { page, messages, run } = await panelWithPresenter(true);
    try {
      const work = page.locator('[data-testid=work-so-far]');
      const head = work.locator('summary');
      await head.getByText('2 files · 1 command (1 failed) · 1 error · plan 1/3 done').waitFor();
      await head.focus();
      await page.keyboard.press('Enter');
      await work.getByText('src/parser.ts').waitFor();
      assert.match(await work.innerText(), /npm test\s*· exit 1/);
      assert.match(await work.innerText(), /AssertionError: expected/);
      assert.match(await work.innerText(), /fix parse\(\) for a trailing comma/);
      await run(
        { type: 'turn_start', turnId: 't', prompt: { role: 'user', content: [{ type: 'text', text: 'go on' }], timestamp: 1 } },
        { type: 'compaction_start', trigger: 'threshold', summarizing: 4 },
        {
          type: 'compaction_end',
          outcome: 'done',
          change: { before: messages, after: messages.slice(3), strategies: ['drop_oldest_turns'], storedRefIds: [] },
        },
        {
          type: 'compaction',
          report: {
            beforeTokens: 190_000,
            afterTokens: 50_000,
            beforeMessages: 12,
            afterMessages: 9,
            strategies: ['drop_oldest_turns'],
            durationMs: 40,
            trigger: 'threshold',
          },
        },
      );
      const card = page.locator('[data-testid=compaction]');
      await card.getByText(/^Compacted automatically/).waitFor();
      assert.equal(await card.getByRole('button', { name: 'Undo' }).isDisabled(), true, 'not while the turn runs');
      await page.screenshot({ path: screenshotPath('work-so-far-light'), fullPage: true });
      await run({ type: 'turn_end', turnId: 't', reason: 'done', messages: [] });
      await page.waitForFunction(() => !document.querySelector<HTMLButtonElement>('[data-action=undo-compaction]')?.disabled);
    } finally {
      await page.close();
    }
  });

  it('a reopened session rebuilds its cards with what left the context; both views fit a 320 px sidebar', async () => {
    const page = await browser.newPage({ viewport: { width: 320, height: 900 } });
    page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
    try {
      const messages = sessionMessages(12);
      const summary = 'Fixed **parse()** for a trailing comma; `npm test` passes.';
      const after = [historyMessage({ summary, pins: [], instructions: ['Please look at module 0'] }, 1), ...messages.slice(6)];
      const change = {
        before: messages,
        after,
        strategies: ['clear_tool_results', 'summary'],
        summary,
        storedRefIds: ['res_0a1b2c3d4e5f6a7b'],
      };
      const view = storedCompactionView(change, { trigger: 'threshold' });
      const stored = (id: string) => ({ id, beforeTokens: 85_000, afterTokens: 22_000, durationMs: 14_000, summary, view });
      const presenter = new ChatPresenter(() => {});
      presenter.setUndoAvailable(true);
      presenter.load(after, { compactions: [stored('cmp_1'), stored('cmp_2')], newestUndoable: true });
      const ledger = new WorkLedger();
      ledger.startTurn();
      ledger.recordFile('src/a-rather-long-folder-name/with-a-long-file-name-that-must-wrap.test.ts', 'modified');
      ledger.recordCommand('npm test -- --grep "parse accepts a trailing comma"', 1, 'packages/parser');
      ledger.recordError('read_file', 'read_file failed: File not found: "src/a-rather-long-folder-name/missing.ts".');
      ledger.setPlan([{ text: 'fix parse() for a trailing comma without breaking the callers', status: 'in_progress' }]);
      presenter.setLedger(toLedgerView(ledger.toJSON()));
      await loadPanel(page);
      const base = sessionFixture(12).snapshot;
      assert.ok(base.type === 'session/snapshot');
      const data = { ...base, snapshot: { ...base.snapshot, ...presenter.view() } } as HostToWebview;
      await page.evaluate((d) => window.dispatchEvent(new MessageEvent('message', { data: d })), data);
      await page.locator('body[data-ready="true"]').waitFor();

      const cards = page.locator('[data-testid=compaction]');
      assert.equal(await cards.count(), 2);
      assert.equal(await cards.first().getByRole('button', { name: 'Undo' }).isDisabled(), true, 'an older card cannot be undone');
      const card = cards.last();
      assert.equal(await card.getByRole('button', { name: 'Undo' }).isDisabled(), false, 'the newest can, one click');
      await card.getByText(/^Compacted automatically: 85k → 22k/).waitFor();
      await card.locator('summary', { hasText: 'What left the context' }).click();
      const details = card.locator('[data-testid=compaction-details]');
      await details.getByText('Summarized (6)').waitFor();
      await details.getByRole('button', { name: 'Open stored result res_0a1b2c3d4e5f6a7b' }).click();
      assert.deepEqual(await lastSent(page), { type: 'result/open', refId: 'res_0a1b2c3d4e5f6a7b' });
      const work = page.locator('[data-testid=work-so-far]');
      await work.locator('summary').first().click();
      assert.equal(await work.locator('.hr-tool-name').count(), 0, 'the tool is named once when its error says it');
      for (const el of [work, details, card]) {
        const { scroll, client } = await el.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
        assert.ok(scroll <= client + 1, `nothing runs out sideways at 320 px (${scroll} > ${client})`);
      }
      await page.screenshot({ path: screenshotPath('fidelity-work-so-far-320') });
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath('fidelity-what-left-320') });
    } finally {
      await page.close();
    }
  });
  it("names the tool results the provider's own context editing cleared, once, with the tokens; a doubted figure warns", async () => {
    const { page, run } = await panelWithPresenter();
    try {
      const uses = [
        { callId: 'toolu_1', toolName: 'read_file', target: 'src/parser.ts' },
        { callId: 'toolu_2', toolName: 'run_command', target: 'npm test -- --grep parse' },
      ];
      const clearing = { toolUses: uses, thinkingTurns: 0, tokens: 12_400, reportedTokens: 12_400 };
      await run({ type: 'context_edits', clearing });
      const notice = page.locator('[data-testid=notice]', { hasText: 'The provider cleared 2 older tool results' });
      await notice.first().waitFor();
      assert.match(
        await notice.first().innerText(),
        /12\.4k tokens in all\): read_file src\/parser\.ts; run_command npm test -- --grep parse/,
      );
      // The next request clears the same uses again: nothing new, no second notice.
      await run({ type: 'context_edits', clearing });
      assert.equal(await page.getByText(/The provider cleared/).count(), 1);
      await run({
        type: 'context_edits',
        clearing: {
          toolUses: [...uses, { callId: 'toolu_3', toolName: 'read_file', target: 'src/lexer.ts' }],
          thinkingTurns: 0,
          tokens: 0,
          reportedTokens: 9_000_000,
          doubt: '9M tokens reported cleared, ~2.4k sent in what could be',
        },
      });
      await page.getByText(/The provider cleared an older tool result[\s\S]*src\/lexer\.ts[\s\S]*did not add up/).waitFor();
      await page.screenshot({ path: screenshotPath('provider-cleared-dark') });
    } finally {
      await page.close();
    }
  });
});
