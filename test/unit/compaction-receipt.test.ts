import assert from 'node:assert/strict';
import { compactionReceipt } from '../../src/agent/compaction/receipt';
import { specificsOf } from '../../src/agent/compaction/specifics';
import { historyMessage, parseStoredCompactionView, storedCompactionView } from '../../src/context/compaction';
import { receiptPin, receiptView } from '../../src/panel/receipt-view';
import type { ToolResultMessage } from '../../src/providers/types';
import { assistant, user } from '../fixtures/context/factories';

const failed = (id: string, text: string): ToolResultMessage => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'run_command',
  content: [{ type: 'text', text }],
  isError: true,
  timestamp: 0,
});

describe('compaction receipt: what the compacted view still carries of what left it', () => {
  const gone = [
    user('Use port 8443 and never touch db/migrations/001.sql.'),
    assistant('Reading src/server.ts first.', [{ id: 'a', args: { path: 'src/server.ts' } }]),
    assistant('', [{ id: 'b', name: 'run_command', args: { command: 'npm test' } }]),
    failed('b', '$ npm test\nFAIL src/server.test.ts\n[exit code 1]'),
    assistant('The timeout is 4500 ms; I decided to keep the old API.'),
  ];
  const kept = [user('Carry on.'), assistant('ok')];

  it('counts by kind against the view, and names what is missing', async () => {
    const history = historyMessage(
      {
        summary: 'We use port 8443. src/server.ts was read.',
        pins: [],
        instructions: ['Use port 8443 and never touch db/migrations/001.sql.'],
        ledger: 'Commands (exit code, folder, turn):\n- `npm test` → exit 1, in ., turn 1',
      },
      0,
    );
    const r = await compactionReceipt([...gone, ...kept], [history, ...kept]);
    assert.deepEqual(r.counts, [
      { kind: 'instructions', kept: 1, total: 1 },
      { kind: 'errors', kept: 0, total: 1 },
      { kind: 'commands', kept: 1, total: 1 },
      { kind: 'paths', kept: 2, total: 2 },
      { kind: 'numbers', kept: 1, total: 2 },
    ]);
    assert.deepEqual(r.missing, [
      { kind: 'errors', text: 'FAIL src/server.test.ts' },
      { kind: 'numbers', text: '4500' },
    ]);
  });

  it('on the card: one line of figures, each missing item pinnable, and kept with the stored view', async () => {
    const r = await compactionReceipt([...gone, ...kept], kept);
    const view = receiptView(r, [receiptPin({ kind: 'commands', text: 'npm test' })]);
    assert.equal(view.line, 'kept 0/1 instruction, 0/1 error, 0/1 command, 0/2 paths, 0/2 numbers');
    assert.deepEqual(
      view.missing.filter((m) => m.pinned).map((m) => m.text),
      ['npm test'],
    );
    assert.equal(receiptPin({ kind: 'paths', text: 'src/server.ts' }), 'A file from earlier work: src/server.ts');
    const stored = storedCompactionView(
      { before: [...gone, ...kept], after: kept, strategies: ['drop_oldest_turns'], storedRefIds: [], receipt: r },
      { trigger: 'manual' },
    );
    assert.deepEqual(parseStoredCompactionView(JSON.parse(JSON.stringify(stored)))?.receipt, r);
    assert.equal(receiptView({ counts: [], missing: [] }).line, 'nothing specific left the context');
  });

  it('counts a number by its digits: "0.1" and "4.2" are too common to mean much, "8443" and "1.24.3" are kept', () => {
    const numbers = specificsOf([assistant('Set the ratio to 0.1, see 4.2 in the notes; port 8443 runs node 1.24.3.')])
      .filter((s) => s.kind === 'numbers')
      .map((s) => s.text);
    assert.deepEqual(numbers, ['8443', '1.24.3']);
  });
});
