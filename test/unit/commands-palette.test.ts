import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ContextUsage } from '../../src/agent/events';
import { HOST_COMMANDS, type HostCommand } from '../../src/commands/command-table';
import type { HostActions } from '../../src/app/host-actions';
import { createPaletteCommands } from '../../src/commands/palette-commands';
import type {
  InputOptions,
  LivePick,
  LivePickItem,
  LivePickOptions,
  PaletteUi,
  PickItem,
  PickOptions,
} from '../../src/commands/palette-ui';
import { historyMessage } from '../../src/context/compaction/history-message';
import type { Message } from '../../src/providers/types';
import type { ResultMeta } from '../../src/store/types';
import { meterDetails } from '../../src/panel/meter-view';
import { budget, user } from './panel-factories';

type Call = [string, ...unknown[]];

const SRC = join(__dirname, '..', '..', 'src');

/** What the fake answers, by qualified action name (`sessions.list`); any other action resolves undefined. */
type Reads = Partial<Record<string, (...args: never[]) => unknown>>;

/** HostActions that record every call by its qualified name; reads answer from `data`. No panel, no webview, no vscode. */
function fakeActions(calls: Call[], data: Reads = {}): HostActions {
  const reads: Reads = {
    'sessions.list': () => Promise.resolve({ sessions: [], snapshots: [], currentSessionId: null, canUndoCompaction: false, timeline: [] }),
    'results.storedResults': () => [],
    'context.messages': () => [],
    'pins.pins': () => Promise.resolve([]),
    ...data,
  };
  const group = (prefix: string) =>
    new Proxy(
      {},
      {
        get:
          (_target, name: string) =>
          (...args: unknown[]) => {
            const qualified = `${prefix}.${name}`;
            calls.push([qualified, ...args]);
            const read = reads[qualified] as ((...a: unknown[]) => unknown) | undefined;
            return read ? read(...args) : Promise.resolve();
          },
      },
    );
  return new Proxy({} as HostActions, { get: (_target, prefix: string) => group(prefix) });
}

/** A UI whose pickers and input boxes answer from scripts, in order; records what it was asked and told. */
class ScriptedUi implements PaletteUi {
  readonly asked: Array<{ kind: 'pick'; items: readonly PickItem[]; options: PickOptions } | { kind: 'input'; options: InputOptions }> = [];
  readonly told: string[] = [];
  readonly markdown: string[] = [];
  constructor(
    private readonly picks: Array<(items: readonly PickItem[]) => PickItem | undefined> = [],
    private readonly inputs: Array<string | undefined> = [],
  ) {}
  t(message: string, ...args: Array<string | number>): string {
    return message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)]));
  }
  pick<T extends PickItem>(items: readonly T[], options: PickOptions): Promise<T | undefined> {
    this.asked.push({ kind: 'pick', items, options });
    const answer = this.picks.shift();
    assert.ok(answer, `an unexpected pick list: ${options.title}`);
    return Promise.resolve(answer(items) as T | undefined);
  }
  livePick<T extends LivePickItem>(options: LivePickOptions): LivePick<T> {
    assert.fail(`an unexpected live pick list: ${options.title}`);
  }
  input(options: InputOptions): Promise<string | undefined> {
    this.asked.push({ kind: 'input', options });
    assert.ok(this.inputs.length, `an unexpected input box: ${options.title}`);
    return Promise.resolve(this.inputs.shift());
  }
  info(message: string): void {
    this.told.push(message);
  }
  openMarkdown(content: string): Promise<void> {
    this.markdown.push(content);
    return Promise.resolve();
  }
}

const byLabel = (label: string) => (items: readonly PickItem[]) => items.find((i) => i.label === label);
const dismiss = () => undefined;

const stored = (refId: string, toolName: string): ResultMeta => ({
  refId,
  sessionId: 's1',
  toolName,
  byteSize: 36_760,
  lineCount: 1200,
  createdAt: 1,
});

describe('palette commands call the actions directly', () => {
  it('has one implementation per host command of the table', () => {
    const commands = createPaletteCommands(fakeActions([]), new ScriptedUi());
    assert.deepEqual(Object.keys(commands).sort(), [...HOST_COMMANDS].sort());
  });

  const direct: Array<[HostCommand, Call]> = [
    ['compactContext', ['context.compact']],
    ['clearContext', ['sessions.clear']],
    ['newSession', ['sessions.create']],
    ['undoCompaction', ['context.undoCompaction']],
    ['stop', ['prompt.stop']],
    ['setApiKey', ['config.setApiKey']],
    ['selectModel', ['config.selectModel']],
  ];
  for (const [command, call] of direct) {
    it(`${command} calls ${call[0]}() and nothing else`, async () => {
      const calls: Call[] = [];
      await createPaletteCommands(fakeActions(calls), new ScriptedUi())[command]();
      assert.deepEqual(calls, [call]);
    });
  }

  it('Approve / Reject the Pending Action answer the oldest approval as its card would, and say so when none waits', async () => {
    for (const [command, decision] of [
      ['approvePending', { approved: true }],
      ['rejectPending', { approved: false, reason: 'The user rejected it.' }],
    ] as const) {
      const calls: Call[] = [];
      const ui = new ScriptedUi();
      await createPaletteCommands(fakeActions(calls, { 'approvals.answerOldest': () => true }), ui)[command]();
      assert.deepEqual(calls, [['approvals.answerOldest', decision]]);
      assert.deepEqual(ui.told, []);
      const idle = new ScriptedUi();
      await createPaletteCommands(fakeActions([], { 'approvals.answerOldest': () => false }), idle)[command]();
      assert.deepEqual(idle.told, ['Headroom: nothing is waiting for approval.']);
    }
  });

  it('Open Session… opens the picked session; dismissing opens nothing', async () => {
    const sessions = [
      { id: 'a', title: 'Refactor', createdAt: 1, updatedAt: 2, messageCount: 4, bytes: 10 },
      { id: 'b', title: 'Bug hunt', createdAt: 1, updatedAt: 3, messageCount: 9, bytes: 10 },
    ];
    const listSessions = () => Promise.resolve({ sessions, snapshots: [], currentSessionId: 'a', canUndoCompaction: false, timeline: [] });
    const calls: Call[] = [];
    await createPaletteCommands(fakeActions(calls, { 'sessions.list': listSessions }), new ScriptedUi([byLabel('Bug hunt')])).openSession();
    assert.deepEqual(calls, [['sessions.list'], ['sessions.open', 'b']]);

    const none: Call[] = [];
    await createPaletteCommands(fakeActions(none, { 'sessions.list': listSessions }), new ScriptedUi([dismiss])).openSession();
    assert.deepEqual(none, [['sessions.list']]);
  });

  it('Save Snapshot saves with the trimmed description, none when left empty, nothing when dismissed', async () => {
    for (const [typed, expected] of [
      ['  before the refactor ', [['context.saveSnapshot', 'before the refactor']]],
      ['', [['context.saveSnapshot', undefined]]],
      [undefined, []],
    ] as Array<[string | undefined, Call[]]>) {
      const calls: Call[] = [];
      await createPaletteCommands(fakeActions(calls), new ScriptedUi([], [typed])).saveSnapshot();
      assert.deepEqual(calls, expected, `typed ${JSON.stringify(typed)}`);
    }
  });

  it('Save Snapshot refuses a description the panel would refuse too (over 200 characters)', async () => {
    const ui = new ScriptedUi([], ['x']);
    await createPaletteCommands(fakeActions([]), ui).saveSnapshot();
    const box = ui.asked[0];
    assert.ok(box?.kind === 'input' && box.options.validateInput);
    assert.equal(box.options.validateInput(`  ${'a'.repeat(200)}  `), undefined);
    assert.match(box.options.validateInput('a'.repeat(201)) ?? '', /at most 200 characters/);
  });

  it('Restore Snapshot… restores the picked snapshot and says when there is none', async () => {
    const snapshot = {
      id: 'snap1',
      kind: 'named' as const,
      createdAt: 1,
      throughSeq: 3,
      tokens: null,
      description: 'before',
      summary: null,
      messageCount: 3,
      windowStart: null,
      windowEnd: null,
    };
    const listSessions = () =>
      Promise.resolve({ sessions: [], snapshots: [snapshot], currentSessionId: 'a', canUndoCompaction: false, timeline: [] });
    const calls: Call[] = [];
    await createPaletteCommands(
      fakeActions(calls, { 'sessions.list': listSessions }),
      new ScriptedUi([byLabel('before')]),
    ).restoreSnapshot();
    assert.deepEqual(calls, [['sessions.list'], ['context.restoreSnapshot', 'snap1']]);

    const ui = new ScriptedUi([dismiss]);
    await createPaletteCommands(fakeActions([]), ui).restoreSnapshot();
    const list = ui.asked[0];
    assert.ok(list?.kind === 'pick');
    assert.equal(list.options.placeHolder, 'No snapshots in this session yet');
  });

  it('Open Stored Result… opens the picked result, or a typed ref id when the session lists none', async () => {
    const calls: Call[] = [];
    const storedResults = () => [stored('res_1', 'read_file'), stored('res_2', 'run_command')];
    const ui = new ScriptedUi([byLabel('run_command')]);
    await createPaletteCommands(fakeActions(calls, { 'results.storedResults': storedResults }), ui).openStoredResult();
    assert.deepEqual(calls, [['results.storedResults'], ['results.open', 'res_2']]);
    const list = ui.asked[0];
    assert.ok(list?.kind === 'pick');
    assert.equal(list.items[0]?.description, '35.9 KB · 1,200 lines');

    const typed: Call[] = [];
    await createPaletteCommands(fakeActions(typed), new ScriptedUi([], ['  res_9 '])).openStoredResult();
    assert.deepEqual(typed, [['results.storedResults'], ['results.open', 'res_9']]);
  });

  it("Pin… offers the user's recent prompts, newest first, never the compaction's history message", async () => {
    const messages: Message[] = [
      historyMessage({ summary: 'We fixed the parser.', pins: [], instructions: ['fix the parser'] }, 1),
      user('always use tabs'),
      user('now write the tests'),
    ];
    const calls: Call[] = [];
    const ui = new ScriptedUi([byLabel('always use tabs')]);
    await createPaletteCommands(fakeActions(calls, { 'context.messages': () => messages }), ui).pin();
    const list = ui.asked[0];
    assert.ok(list?.kind === 'pick');
    assert.deepEqual(
      list.items.map((i) => i.label),
      ['$(edit) Type what to pin…', 'now write the tests', 'always use tabs'],
    );
    assert.deepEqual(calls, [['context.messages'], ['pins.pin', 'always use tabs']]);
    assert.deepEqual(ui.told, ['Pinned: always use tabs']);
  });

  it('Pin… pins typed text, and pins nothing when the box is left empty', async () => {
    const calls: Call[] = [];
    await createPaletteCommands(fakeActions(calls), new ScriptedUi([byLabel('$(edit) Type what to pin…')], ['keep the API stable'])).pin();
    assert.deepEqual(calls, [['context.messages'], ['pins.pin', 'keep the API stable']]);

    const none: Call[] = [];
    await createPaletteCommands(fakeActions(none), new ScriptedUi([byLabel('$(edit) Type what to pin…')], ['   '])).pin();
    assert.deepEqual(none, [['context.messages']]);
  });

  it('Unpin… removes the picked pin, and says so when there are none', async () => {
    const pins = () => Promise.resolve([{ id: 'p1', text: 'always use tabs', createdAt: 1 }]);
    const calls: Call[] = [];
    await createPaletteCommands(fakeActions(calls, { 'pins.pins': pins }), new ScriptedUi([byLabel('always use tabs')])).unpin();
    assert.deepEqual(calls, [['pins.pins'], ['pins.unpin', 'p1']]);

    const ui = new ScriptedUi();
    await createPaletteCommands(fakeActions([]), ui).unpin();
    assert.deepEqual(ui.told, ['Headroom: this session has no pins.']);
  });

  it('Show Context Breakdown opens the measured figures as markdown', async () => {
    const usage: ContextUsage = { used: 12_345, effectiveWindow: 160_000, contextWindow: 200_000, ratio: 12_345 / 160_000, status: 'ok' };
    const ui = new ScriptedUi();
    await createPaletteCommands(fakeActions([], { 'context.measure': () => usage }), ui).showContextBreakdown();
    // The meter's own label: the same figure and percent, of the effective window like every percent (it once said 7.7 % beside the meter's 6 %).
    assert.match(ui.markdown[0] ?? '', /^Used \*\*12\.3k \/ 160k \(8 %\)\*\* \(estimated\)\.$/m);
  });

  it("Show Context Breakdown lists the same rows as the meter's details", async () => {
    const b = budget({ system: 3_000, messages: 20_000, toolResults: 5_000 });
    const usage: ContextUsage = {
      used: b.used,
      effectiveWindow: b.effectiveWindow,
      contextWindow: b.window,
      ratio: 0.1,
      status: 'ok',
      budget: b,
    };
    const ui = new ScriptedUi();
    await createPaletteCommands(fakeActions([], { 'context.measure': () => usage }), ui).showContextBreakdown();
    const details = meterDetails(b);
    assert.ok(details.length > 0);
    for (const row of details) assert.ok(ui.markdown[0]?.includes(`| ${row.label} | ${row.value.replace(/\|/g, '\\|')} |`), row.label);
  });

  it('surfaces a failing action to its caller (the registration shows it and rethrows)', async () => {
    const group = new Proxy({}, { get: () => () => Promise.reject(new Error('There is no compaction to undo.')) });
    const failing = new Proxy({} as HostActions, { get: () => group });
    await assert.rejects(createPaletteCommands(failing, new ScriptedUi()).undoCompaction(), /no compaction to undo/);
  });
});

describe('no host code hands the panel a fake webview message', () => {
  it('only the panel receives webview messages: nothing in src/ outside src/panel calls panel.receive', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (full !== join(SRC, 'panel')) walk(full);
        } else if (entry.name.endsWith('.ts') && /\.receive\(/.test(readFileSync(full, 'utf8'))) offenders.push(relative(SRC, full));
      }
    };
    walk(SRC);
    assert.deepEqual(offenders, []);
  });
});
