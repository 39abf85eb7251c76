import * as assert from 'node:assert/strict';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { approvalItem, lineChanges } from '../../src/panel/approvals';
import { approvalView } from '../../src/tools/approval-record';
import type { HostToWebview } from '../../src/protocol/messages';
import type { ApprovalRequest } from '../../src/tools/ports';

const edit: ApprovalRequest = {
  kind: 'edit',
  toolName: 'edit_file',
  toolCallId: 'c1',
  path: 'src/a.ts',
  oldContent: 'a\nb\nc',
  newContent: 'a\nB\nc\nd',
};
const command: ApprovalRequest = { kind: 'command', toolName: 'run_command', toolCallId: 'c2', command: 'npm test', cwd: '/ws' };

describe('panel: approval cards', () => {
  it('shows an edit with its path and line counts, and a command with its working folder', () => {
    assert.deepEqual(approvalItem('apr_1', edit), {
      kind: 'approval',
      id: 'apr_1',
      toolCallId: 'c1',
      toolName: 'edit_file',
      state: 'pending',
      request: { kind: 'edit', path: 'src/a.ts', isNew: false, added: 2, removed: 1 },
    });
    assert.deepEqual(approvalItem('apr_2', command).request, { kind: 'command', command: 'npm test', cwd: '/ws' });
    assert.equal((approvalItem('apr_3', { ...edit, oldContent: undefined }).request as { isNew: boolean }).isNew, true);
  });

  it('shows an external tool call with where the tool comes from and its input', () => {
    const tool: ApprovalRequest = {
      kind: 'tool',
      toolName: 'db_query',
      toolCallId: 'c3',
      origin: 'the MCP server "db"',
      input: '{"sql": "DROP TABLE x"}',
    };
    const item = approvalItem('apr_4', tool);
    assert.deepEqual(item.request, { kind: 'tool', origin: 'the MCP server "db"', input: '{"sql": "DROP TABLE x"}' });
    assert.equal(item.toolName, 'db_query');
  });

  it('goes from pending to approved, rejected with the reason, or cancelled', () => {
    const posted: HostToWebview[] = [];
    const p = new ChatPresenter((m) => posted.push(m));
    p.showApproval('apr_1', edit);
    p.showApproval('apr_2', command);
    p.showApproval('apr_3', command);
    p.settleApproval('apr_1', { approved: true });
    p.settleApproval('apr_2', { approved: false, reason: 'not now' });
    p.settleApproval('apr_3', { approved: false, reason: 'The turn was stopped.' }, true);
    p.settleApproval('unknown', { approved: true });
    const states = p.transcript.items.map((i) => (i.kind === 'approval' ? [i.state, i.note ?? ''] : []));
    assert.deepEqual(states, [
      ['approved', ''],
      ['rejected', 'not now'],
      ['cancelled', 'The turn was stopped.'],
    ]);
    assert.equal(posted.filter((m) => m.type === 'chat/ops').length, 6);
  });

  it('counts lines of a new file as all added and of an emptied one as all removed', () => {
    assert.deepEqual(lineChanges(undefined, 'x\ny'), { added: 2, removed: 0 });
    assert.deepEqual(lineChanges('x\ny', ''), { added: 0, removed: 2 });
    assert.deepEqual(lineChanges(undefined, 'export const a = 1;\n'), { added: 1, removed: 0 });
    assert.deepEqual(lineChanges('a\nb\n', 'a\nc\n'), { added: 1, removed: 1 });
  });

  it('counts a moved line as a change, as "Changes in this turn" does for the same edit', () => {
    const request = {
      kind: 'edit' as const,
      toolName: 'edit_file',
      toolCallId: 'c1',
      path: 'a.ts',
      oldContent: 'one\ntwo\nthree\n',
      newContent: 'three\none\ntwo\n',
    };
    const card = approvalView(request);
    assert.ok(card.kind === 'edit');
    assert.deepEqual({ added: card.added, removed: card.removed }, { added: 1, removed: 1 });
    assert.deepEqual(lineChanges(request.oldContent, request.newContent), { added: 1, removed: 1 });
  });
});

describe('panel: a tool waiting for approval', () => {
  it('shows "waiting" on the tool card while the approval is pending and leaves that time out of its duration', () => {
    let now = 0;
    const p = new ChatPresenter(
      () => undefined,
      () => now,
    );
    const call = { type: 'toolCall' as const, id: 'c2', name: 'run_command', arguments: { command: 'npm test' } };
    p.handle({ type: 'tool_start', call });
    now = 100;
    p.showApproval('apr_1', command);
    const card = () => {
      const c = p.transcript.items.find((i) => i.kind === 'tool');
      if (c?.kind !== 'tool') throw new Error('the tool card is gone');
      return c;
    };
    assert.equal(card().status, 'waiting');
    now = 60_100; // the user thought for a minute
    p.settleApproval('apr_1', { approved: true, forSession: true });
    assert.equal(card().status, 'running');
    const answered = p.transcript.get('apr_1');
    assert.equal(answered?.kind === 'approval' && answered.note, 'Allowed for this session: this exact command.');
    now = 60_400;
    p.handle({
      type: 'tool_end',
      call,
      result: {
        role: 'toolResult',
        toolCallId: 'c2',
        toolName: 'run_command',
        content: [{ type: 'text', text: 'ok' }],
        isError: false,
        timestamp: 1,
      },
      offloaded: false,
    });
    assert.equal(card().durationMs, 400);
  });
});
