import * as assert from 'node:assert/strict';
import { messagesToItems, toolSummary } from '../../src/panel/transcript-items';
import { assistant, call, result, user } from './panel-factories';

describe('panel: a stored transcript as chat items', () => {
  it('maps prompts, answers, tool calls and their results in order, with stable ids', () => {
    const items = messagesToItems([
      user('read a.ts'),
      assistant('Reading it.', {}, [call('c1')]),
      result('c1', 'const a = 1;', { refId: 'res_1' }),
      assistant('Done.'),
    ]);
    assert.deepEqual(
      items.map((i) => `${i.kind}:${i.id}`),
      ['user:m0', 'assistant:m1', 'tool:m1t1', 'assistant:m3'],
    );
    const tool = items[2];
    assert.ok(tool.kind === 'tool');
    assert.equal(tool.status, 'done');
    assert.equal(tool.output, 'const a = 1;');
    assert.equal(tool.refId, 'res_1');
    assert.deepEqual(
      messagesToItems([user('read a.ts'), assistant('Reading it.', {}, [call('c1')])]).map((i) => i.id),
      ['m0', 'm1', 'm1t1'],
    );
  });

  it('marks a call without a result as cancelled and a failed result as an error', () => {
    const items = messagesToItems([assistant('', {}, [call('c1'), call('c2')]), result('c2', 'boom', { isError: true })]);
    assert.deepEqual(
      items.map((i) => i.kind === 'tool' && i.status),
      ['cancelled', 'error'],
    );
  });

  it('keeps the reasoning and says why an answer ended early', () => {
    const [a] = messagesToItems([
      assistant('', {
        stopReason: 'error',
        error: { kind: 'network', message: 'socket hang up' },
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'Part' },
        ],
      }),
    ]);
    assert.ok(a.kind === 'assistant');
    assert.equal(a.reasoning, 'hmm');
    assert.equal(a.stopNote, 'The answer broke off: socket hang up');
  });

  it('summarizes arguments by their most telling field and truncates huge ones', () => {
    assert.equal(toolSummary({ arguments: { command: 'npm   test\n--watch' } }), 'npm test --watch');
    assert.equal(toolSummary({ arguments: { other: 5 } }), '');
    const [t] = messagesToItems([assistant('', {}, [call('c1', 'write', { content: 'x'.repeat(10_000) })])]);
    assert.ok(t.kind === 'tool' && t.args.length < 4_200 && /more characters/.test(t.args));
  });
});
