import * as assert from 'node:assert/strict';
import { Transcript } from '../../src/protocol/chat-ops';

describe('protocol: transcript ops apply the same way on both sides', () => {
  it('appends, streams text into an item, and updates it in place', () => {
    const t = new Transcript();
    t.apply({ op: 'append', item: { kind: 'user', id: 'u1', text: 'hi' } });
    t.apply({ op: 'append', item: { kind: 'assistant', id: 'a1', text: '', streaming: true } });
    t.apply({ op: 'delta', id: 'a1', field: 'text', text: 'Hel' });
    t.apply({ op: 'delta', id: 'a1', field: 'text', text: 'lo' });
    t.apply({ op: 'delta', id: 'a1', field: 'reasoning', text: 'think' });
    assert.deepEqual(t.get('a1'), { kind: 'assistant', id: 'a1', text: 'Hello', reasoning: 'think', streaming: true });
    t.apply({ op: 'update', item: { kind: 'assistant', id: 'a1', text: 'Hello!', streaming: false } });
    assert.deepEqual(
      t.items.map((i) => i.id),
      ['u1', 'a1'],
    );
    assert.deepEqual(t.get('a1'), { kind: 'assistant', id: 'a1', text: 'Hello!', streaming: false });
  });

  it('inserts before an item (a compaction divider), appends when that item is unknown, never duplicates', () => {
    const t = new Transcript([
      { kind: 'user', id: 'u1', text: 'a' },
      { kind: 'user', id: 'u2', text: 'b' },
    ]);
    assert.equal(t.apply({ op: 'insert', item: { kind: 'divider', id: 'd1', text: 'above' }, before: 'u2' }), 'd1');
    assert.equal(t.apply({ op: 'insert', item: { kind: 'divider', id: 'd1', text: 'again' }, before: 'u1' }), undefined);
    t.apply({ op: 'insert', item: { kind: 'divider', id: 'd2', text: 'end' }, before: 'gone' });
    assert.deepEqual(
      t.items.map((i) => i.id),
      ['u1', 'd1', 'u2', 'd2'],
    );
    t.apply({ op: 'remove', id: 'd1' });
    assert.equal(t.get('u2')?.id, 'u2', 'the index follows the insert and the removal');
    assert.equal(t.apply({ op: 'delta', id: 'u2', field: 'text', text: '!' }), 'u2');
    assert.deepEqual(t.get('u2'), { kind: 'user', id: 'u2', text: 'b!' });
  });

  it('ignores ops for unknown ids and deltas to fields an item does not have', () => {
    const t = new Transcript([{ kind: 'tool', id: 'c1', name: 'read_file', summary: '', args: '', status: 'running', output: '' }]);
    assert.equal(t.apply({ op: 'delta', id: 'nope', field: 'text', text: 'x' }), undefined);
    assert.equal(t.apply({ op: 'update', item: { kind: 'user', id: 'nope', text: 'x' } }), undefined);
    assert.equal(t.apply({ op: 'delta', id: 'c1', field: 'text', text: 'x' }), undefined);
    assert.equal(t.apply({ op: 'delta', id: 'c1', field: 'output', text: 'line\n' }), 'c1');
    assert.equal(t.items.length, 1);
    assert.equal((t.get('c1') as { output: string }).output, 'line\n');
  });

  it('removes an item and keeps the index right for the items after it', () => {
    const t = new Transcript([
      { kind: 'user', id: 'u1', text: '1' },
      { kind: 'user', id: 'u2', text: '2' },
      { kind: 'user', id: 'u3', text: '3' },
    ]);
    t.apply({ op: 'remove', id: 'u2' });
    t.apply({ op: 'delta', id: 'u3', field: 'text', text: '!' });
    assert.deepEqual(
      t.items.map((i) => (i as { text: string }).text),
      ['1', '3!'],
    );
    t.reset([]);
    assert.equal(t.items.length, 0);
    assert.equal(t.get('u1'), undefined);
  });

  it('treats an append of a known id as a replacement (a re-sent item never duplicates)', () => {
    const t = new Transcript();
    t.apply({ op: 'append', item: { kind: 'user', id: 'u1', text: 'a' } });
    t.apply({ op: 'append', item: { kind: 'user', id: 'u1', text: 'b' } });
    assert.deepEqual(t.items, [{ kind: 'user', id: 'u1', text: 'b' }]);
  });

  it('prepends a page of older items before everything, leaving out ids already shown, and keeps the index right', () => {
    const t = new Transcript([{ kind: 'user', id: 'm5', text: 'five' }]);
    const added = t.prepend([
      { kind: 'user', id: 'm3', text: 'three' },
      { kind: 'user', id: 'm4', text: 'four' },
      { kind: 'user', id: 'm5', text: 'again' },
      { kind: 'user', id: 'm4', text: 'twice' },
    ]);
    assert.deepEqual(added, ['m3', 'm4']);
    assert.deepEqual(
      t.items.map((i) => [i.id, i.kind === 'user' ? i.text : '']),
      [
        ['m3', 'three'],
        ['m4', 'four'],
        ['m5', 'five'],
      ],
    );
    t.apply({ op: 'delta', id: 'm5', field: 'text', text: '!' });
    t.apply({ op: 'remove', id: 'm3' });
    assert.deepEqual(t.get('m5'), { kind: 'user', id: 'm5', text: 'five!' });
    assert.deepEqual(
      t.items.map((i) => i.id),
      ['m4', 'm5'],
    );
  });
});
