import assert from 'node:assert/strict';
import { mentionLabel, parseHostMessage, parseWebviewMessage, REQUESTS } from '../../src/protocol/messages';
import { chipMention, mentionQuery, written } from '../../webview-ui/mention-text';

describe('protocol: @-mentions are validated on both sides', () => {
  it('accepts a prompt with file, folder, range, selection and problems mentions', () => {
    const r = parseWebviewMessage({
      type: 'prompt/submit',
      text: 'look at @src/a.ts',
      mentions: [
        { kind: 'file', path: 'src/a.ts' },
        { kind: 'folder', path: 'src' },
        { kind: 'range', path: 'src/a.ts', startLine: 3, endLine: 7, text: 'x' },
        { kind: 'selection' },
        { kind: 'problems' },
      ],
    });
    assert.ok(r.ok, r.ok ? '' : r.error);
  });

  it('rejects unknown kinds, NUL in a path, bad line numbers and too many mentions', () => {
    const bad = [
      [{ kind: 'url', path: 'http://x' }],
      [{ kind: 'file', path: 'a\0b' }],
      [{ kind: 'file', path: '' }],
      [{ kind: 'range', path: 'a', startLine: 0, endLine: 1, text: '' }],
      [{ kind: 'file', path: 'x'.repeat(1_001) }],
      Array.from({ length: 51 }, (_, i) => ({ kind: 'file', path: `f${i}` })),
    ];
    for (const mentions of bad) {
      const r = parseWebviewMessage({ type: 'prompt/submit', text: 'hi', mentions });
      assert.equal(r.ok, false, JSON.stringify(mentions).slice(0, 80));
      assert.equal(parseWebviewMessage({ type: 'prompt/resend', text: 'hi', mentions }).ok, false);
    }
    assert.equal(REQUESTS['mention/search'][0].safeParse({ query: 'x'.repeat(501) }).success, false);
    assert.equal(parseWebviewMessage({ type: 'mention/open', path: '' }).ok, false);
  });

  it('validates the host’s picker rows and the mention the editor adds', () => {
    assert.ok(REQUESTS['mention/search'][1].safeParse({ options: [{ kind: 'file', path: 'src/app.ts' }] }).success);
    assert.equal(REQUESTS['mention/search'][1].safeParse({ options: [{ kind: 'selection', path: 'x' }] }).success, false);
    assert.ok(parseHostMessage({ type: 'mention/add', mention: { kind: 'range', path: 'a.ts', startLine: 2, endLine: 2, text: 'y' } }).ok);
    const chat = parseHostMessage({
      type: 'chat/ops',
      ops: [
        {
          op: 'append',
          item: { kind: 'user', id: 'u1', text: 'hi', mentions: [{ kind: 'file', label: 'a', problem: 'p', stored: true }] },
        },
      ],
    });
    assert.ok(chat.ok, chat.ok ? '' : chat.error);
  });

  it('labels mentions as they are written after the @', () => {
    assert.equal(mentionLabel({ kind: 'file', path: 'src/a.ts' }), 'src/a.ts');
    assert.equal(mentionLabel({ kind: 'range', path: 'a.ts', startLine: 3, endLine: 3, text: '' }), 'a.ts:3');
    assert.equal(mentionLabel({ kind: 'range', path: 'a.ts', startLine: 3, endLine: 9, text: '' }), 'a.ts:3-9');
    assert.equal(mentionLabel({ kind: 'problems' }), 'problems');
  });
});

describe('panel: the @-mention text of the prompt box', () => {
  it('finds the @word being typed at the caret, not an e-mail address', () => {
    assert.deepEqual(mentionQuery('see @src/ap', 11), { start: 4, query: 'src/ap' });
    assert.deepEqual(mentionQuery('@', 1), { start: 0, query: '' });
    assert.equal(mentionQuery('mail me@example.com', 19), undefined);
    assert.equal(mentionQuery('see @src/ap done', 16), undefined);
  });

  it('knows which taken mentions are still written in the text', () => {
    assert.ok(written('look at @src/a.ts, then', 'src/a.ts'));
    assert.ok(written('@problems', 'problems'));
    assert.ok(!written('look at @src/a.tsx', 'src/a.ts'));
    assert.ok(!written('look at x@src/a.ts', 'src/a.ts'));
  });

  it('turns a sent chip back into its mention for an edit (not a refused one)', () => {
    assert.deepEqual(chipMention({ kind: 'file', label: 'a.ts', path: 'a.ts' }), { kind: 'file', path: 'a.ts' });
    assert.deepEqual(chipMention({ kind: 'problems', label: 'problems' }), { kind: 'problems' });
    assert.equal(chipMention({ kind: 'file', label: '../x', problem: 'outside' }), undefined);
  });
});
