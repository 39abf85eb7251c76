import * as assert from 'node:assert/strict';
import { LedgerRecorder, WorkLedger } from '../../src/agent/ledger';
import type { AgentEvent } from '../../src/agent/events';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { toLedgerView } from '../../src/panel/ledger-view';
import { messagesToItems } from '../../src/panel/transcript-items';
import type { ChatItem } from '../../src/protocol/messages';
import { rejectedText } from '../../src/tools/builtin/approval';
import { writeFileTool } from '../../src/tools/builtin/write-file';
import type { ToolResult } from '../../src/tools/tool-result';
import { call as toolCall, makeContext, removeDir, tempWorkspace } from '../fixtures/tools/tool-context';
import { assistant, call, result, user } from './panel-factories';

const rejected = (id: string): ToolResult =>
  result(id, rejectedText('writing src/a.ts', { approved: false }, 'the file was not changed'), {
    toolName: 'write_file',
    isError: true,
    errorKind: 'tool_failed',
    decision: 'rejected',
  });
const stopped = (id: string): ToolResult =>
  result(id, 'run_command was stopped by the user before it finished.', {
    toolName: 'run_command',
    isError: true,
    errorKind: 'aborted',
    decision: 'stopped',
  });

function statuses(items: readonly ChatItem[]): Array<string | false> {
  return items.filter((i) => i.kind === 'tool').map((i) => i.kind === 'tool' && i.status);
}

describe("panel: a user's rejection or stop is a decision, not a failure", () => {
  it('a rejected write is recorded as a rejection by the tool that asked', async () => {
    const root = await tempWorkspace({});
    try {
      const r = await writeFileTool.invoke(
        toolCall('write_file', { path: 'a.ts', content: 'x' }),
        makeContext(root, { decision: { approved: false } }),
      );
      assert.equal(r.isError, true, 'the model must not take it for output');
      assert.equal(r.decision, 'rejected');
    } finally {
      await removeDir(root);
    }
  });

  it('the live cards say "rejected" and "stopped", never "failed"', () => {
    const p = new ChatPresenter(
      () => undefined,
      () => 1_000,
    );
    const writeCall = call('c1', 'write_file', { path: 'src/a.ts', content: 'x' });
    const runCall = call('c2', 'run_command', { command: 'npm test' });
    const events: AgentEvent[] = [
      { type: 'turn_start', turnId: 't', prompt: user('go') },
      { type: 'tool_start', call: writeCall },
      { type: 'tool_end', call: writeCall, result: rejected('c1'), offloaded: false },
      { type: 'tool_start', call: runCall },
      { type: 'tool_end', call: runCall, result: stopped('c2'), offloaded: false },
      { type: 'turn_end', turnId: 't', reason: 'aborted', messages: [] },
    ];
    events.forEach((e) => p.handle(e));
    assert.deepEqual(statuses(p.transcript.items), ['rejected', 'stopped']);
  });

  it('a reopened session shows them the same, also when stored before the decision was kept', () => {
    const writeCall = call('c1', 'write_file', { path: 'src/a.ts', content: 'x' });
    const runCall = call('c2', 'run_command', { command: 'npm test' });
    const { decision: _r, ...oldRejected } = rejected('c1');
    const { decision: _s, ...oldStopped } = stopped('c2');
    const fresh = messagesToItems([user('go'), assistant('', {}, [writeCall, runCall]), rejected('c1'), stopped('c2')]);
    const old = messagesToItems([user('go'), assistant('', {}, [writeCall, runCall]), oldRejected, oldStopped]);
    assert.deepEqual(statuses(fresh), ['rejected', 'stopped']);
    assert.deepEqual(statuses(old), ['rejected', 'stopped']);
    const failed = messagesToItems([assistant('', {}, [call('c3')]), result('c3', 'ENOENT', { isError: true })]);
    assert.deepEqual(statuses(failed), ['error'], 'a real failure is still one');
  });

  it('"Work so far" counts them as decisions, not errors', () => {
    const rec = new LedgerRecorder(new WorkLedger());
    const writeCall = call('c1', 'write_file', { path: 'src/a.ts', content: 'x' });
    const runCall = call('c2', 'run_command', { command: 'npm test' });
    rec.handle({ type: 'turn_start', turnId: 't', prompt: user('go') });
    rec.handle({ type: 'tool_end', call: writeCall, result: rejected('c1'), offloaded: false });
    rec.handle({ type: 'tool_end', call: runCall, result: stopped('c2'), offloaded: false });
    const view = toLedgerView(rec.ledger.toJSON());
    assert.deepEqual(view.errors, []);
    assert.ok(!/error/.test(view.headline), view.headline);
    assert.deepEqual(
      view.decisions.map((d) => [d.text, d.by]),
      [
        ['Rejected writing src/a.ts', 'user'],
        ['Stopped run_command `npm test`', 'user'],
      ],
    );
  });
});
