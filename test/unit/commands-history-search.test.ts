import * as assert from 'node:assert/strict';
import type { HostActions } from '../../src/app/host-actions';
import type { SessionHits } from '../../src/app/workspace-search';
import { searchHistory, type HitItem } from '../../src/commands/history-search-command';
import type { LivePick, LivePickItem, LivePickOptions, PaletteUi, PickButton } from '../../src/commands/palette-ui';
import { formatRelativeDate } from '../../src/protocol/format';

const HOUR = 3_600_000;

/** A live pick list driven by the test: `type` is a keystroke, `accept`/`press` answer it. */
class LiveUi implements PaletteUi {
  options: LivePickOptions | undefined;
  /** Every `show`, in order. */
  readonly shown: Array<{ items: readonly LivePickItem[]; busy: boolean; summary?: string }> = [];
  private resolve: ((a: { item: LivePickItem; button?: PickButton } | undefined) => void) | undefined;
  t(message: string, ...args: Array<string | number>): string {
    return message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)]));
  }
  livePick<T extends LivePickItem>(options: LivePickOptions): LivePick<T> {
    this.options = options;
    return {
      show: (items, state) => this.shown.push({ items, ...state }),
      answer: new Promise((r) => (this.resolve = r as typeof this.resolve)),
    };
  }
  pick(): Promise<undefined> {
    return Promise.reject(new Error('an unexpected pick list'));
  }
  input(): Promise<undefined> {
    return Promise.reject(new Error('an unexpected input box'));
  }
  info(): void {}
  openMarkdown(): Promise<void> {
    return Promise.resolve();
  }
  type(value: string): void {
    this.options!.onValue(value);
  }
  get last() {
    return this.shown.at(-1)!;
  }
  accept(item: LivePickItem, button?: PickButton): void {
    this.resolve!({ item, button });
  }
}

/** Actions whose search answers from `search` and that record what is opened. */
function actions(search: (query: string, signal: AbortSignal) => AsyncIterable<SessionHits>, calls: unknown[][]): HostActions {
  return {
    results: {
      searchHistory: search,
      open: (...args: unknown[]) => (calls.push(['results.open', ...args]), Promise.resolve()),
    },
    sessions: { open: (...args: unknown[]) => (calls.push(['sessions.open', ...args]), Promise.resolve()) },
  } as unknown as HostActions;
}

const part = (over: Partial<SessionHits>): SessionHits => ({
  sessionId: 'ses_00000000000000000001',
  title: 'Current work',
  updatedAt: Date.now(),
  current: true,
  total: 1,
  hits: [{ ref: 'msg_4', seq: 4, turn: 2, role: 'assistant', excerpt: 'the port stays at 8080' }],
  ...over,
});

const other = part({
  sessionId: 'ses_00000000000000000002',
  title: 'Port migration',
  updatedAt: Date.now() - 3 * HOUR,
  current: false,
  total: 2,
  hits: [
    { ref: 'res_9', seq: 12, turn: 5, role: 'tool', toolName: 'run_command', excerpt: 'listening on port 8080' },
    { ref: 'msg_2', seq: 2, turn: 1, role: 'user', excerpt: 'move the port to 8080' },
  ],
});

async function* parts(...all: SessionHits[]): AsyncGenerator<SessionHits> {
  for (const p of all) yield await Promise.resolve(p);
}

/** Resolves once `check` holds (the debounce and the search are asynchronous). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
  assert.ok(check(), 'the condition never held');
}

describe('Search History… (palette command over every session)', () => {
  it('shows the current session first, then the others, each hit with its session and age; opens a hit where it is', async () => {
    const ui = new LiveUi();
    const calls: unknown[][] = [];
    const done = searchHistory(
      actions(() => parts(part({}), other), calls),
      ui,
      1,
    );
    ui.type('port 8080');
    await until(() => ui.last?.busy === false && ui.last.items.length === 3);
    const items = ui.last.items as HitItem[];
    assert.deepEqual(
      items.map((i) => i.description),
      [
        'Headroom · turn 2 · this session',
        // The age as the panel words it now ("3 h ago", or "yesterday" just after midnight).
        `Tool · run_command · turn 5 · Port migration · ${formatRelativeDate(other.updatedAt)}`,
        `You · turn 1 · Port migration · ${formatRelativeDate(other.updatedAt)}`,
      ],
    );
    assert.deepEqual(
      items.map((i) => i.label),
      ['$(hubot)', '$(tools)', '$(account)'],
    );
    assert.equal(items[0].buttons, undefined, 'the current session has no Open session button');
    assert.equal(items[1].buttons?.[0]?.tooltip, 'Open session');
    assert.equal(ui.last.summary, '3 matches in 2 sessions');
    ui.accept(items[1]);
    await done;
    // Opened at the hit, from its own session; the current session is not switched.
    assert.deepEqual(calls, [['results.open', 'res_9', 'port 8080', 'ses_00000000000000000002']]);
  });

  it("switches to a hit's session only with its Open session button", async () => {
    const ui = new LiveUi();
    const calls: unknown[][] = [];
    const done = searchHistory(
      actions(() => parts(other), calls),
      ui,
      1,
    );
    ui.type('port');
    await until(() => ui.last?.busy === false);
    const item = ui.last.items[0] as HitItem;
    ui.accept(item, item.buttons![0]);
    await done;
    assert.deepEqual(calls, [['sessions.open', 'ses_00000000000000000002']]);

    const mine = new LiveUi();
    const mineCalls: unknown[][] = [];
    const opened = searchHistory(
      actions(() => parts(part({})), mineCalls),
      mine,
      1,
    );
    mine.type('port');
    await until(() => mine.last?.busy === false);
    mine.accept(mine.last.items[0]);
    await opened;
    assert.deepEqual(mineCalls, [['results.open', 'msg_4', 'port', undefined]]);
  });

  it('shows stored titles, tool names and text without icons or line breaks', async () => {
    const ui = new LiveUi();
    const hostile = part({
      current: false,
      title: '$(check) Approved\n$(warning) fake row',
      hits: [{ ref: 'res_1', seq: 3, turn: 1, role: 'tool', toolName: '$(pass)mcp', excerpt: '$(error) Build failed $(x)' }],
    });
    const done = searchHistory(
      actions(() => parts(hostile), []),
      ui,
      1,
    );
    ui.type('build');
    await until(() => ui.last?.busy === false);
    const [item] = ui.last.items;
    assert.match(item.description!, /^Tool · \\\$\(pass\)mcp · turn 1 · \\\$\(check\) Approved\\n\\\$\(warning\) fake row · /);
    assert.equal(item.detail, '\\$(error) Build failed \\$(x)');
    ui.type('');
    assert.deepEqual(ui.last.items, [], 'an emptied box empties the list');
    (ui as unknown as { resolve: (a: undefined) => void }).resolve(undefined);
    await done;
  });

  it('cancels a search the next keystroke supersedes, and never shows its late hits', async () => {
    const ui = new LiveUi();
    const signals = new Map<string, AbortSignal>();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    async function* search(query: string, signal: AbortSignal): AsyncGenerator<SessionHits> {
      signals.set(query, signal);
      yield part({ hits: [{ ref: 'msg_1', seq: 1, turn: 1, role: 'user', excerpt: `first of ${query}` }] });
      if (query === 'por') await held; // still searching the other sessions when the next key comes
      yield other;
    }
    const done = searchHistory(actions(search, []), ui, 1);
    ui.type('po');
    ui.type('por'); // within the pause: the search for "po" never starts
    await until(() => ui.last?.items.length === 1 && ui.last.busy);
    ui.type('port');
    assert.equal(signals.has('po'), false, 'a keystroke within the pause starts no search');
    assert.equal(signals.get('por')?.aborted, true, 'the superseded search was aborted');
    release();
    await until(() => ui.last?.busy === false);
    assert.ok(
      ui.last.items.every((i) => i.detail !== 'first of por'),
      'the superseded search showed nothing once the next one began',
    );
    assert.equal(ui.last.items.length, 3);
    (ui as unknown as { resolve: (a: undefined) => void }).resolve(undefined);
    await done;
    assert.equal(signals.get('port')?.aborted, true, 'closing the list stops its search');
  });
});
