import * as assert from 'node:assert/strict';
import { ChatPresenter } from '../../src/panel/chat-presenter';
import { messagesToItems } from '../../src/panel/transcript-items';
import { PAGE_MESSAGES, pageStart } from '../../src/panel/transcript-pages';
import { REQUESTS } from '../../src/protocol/messages';
import type { AssistantMessage, Message, ToolResultMessage } from '../../src/providers/types';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });

/** A turn: a prompt, an answer with `calls` tool calls, their results, and a closing answer. */
function turn(i: number, calls: number, resultChars = 50): Message[] {
  const ask: AssistantMessage = {
    role: 'assistant',
    content: [
      { type: 'text', text: `looking ${i}` },
      ...Array.from({ length: calls }, (_, k) => ({
        type: 'toolCall' as const,
        id: `c${i}_${k}`,
        name: 'read_file',
        arguments: { path: `f${i}.${k}` },
      })),
    ],
    provider: 'anthropic',
    model: 'm',
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    stopReason: calls ? 'toolUse' : 'end',
    timestamp: 1,
  };
  const results = Array.from({ length: calls }, (_, k): ToolResultMessage => ({
    role: 'toolResult',
    toolCallId: `c${i}_${k}`,
    toolName: 'read_file',
    content: [{ type: 'text', text: `out ${i}.${k} ${'x'.repeat(resultChars)}` }],
    isError: false,
    timestamp: 1,
  }));
  return [user(`prompt ${i}`), ask, ...results];
}

function session(messages: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; out.length < messages; i++) out.push(...turn(i, i % 4));
  return out;
}

describe('panel: the transcript a page at a time', () => {
  it('a page ends where asked, holds at most a page of messages and never starts with a tool result', () => {
    const all = session(700);
    let end = all.length;
    const starts: number[] = [];
    while (end > 0) {
      const start = pageStart(all, end);
      assert.ok(start < end && end - start <= PAGE_MESSAGES + 4, `page ${start}..${end}`);
      assert.notEqual(all[start].role, 'toolResult');
      starts.push(start);
      end = start;
    }
    assert.equal(starts.at(-1), 0);
    assert.ok(starts.length >= 700 / PAGE_MESSAGES);
    assert.equal(pageStart([], 0), 0);
    assert.equal(pageStart(all, 10), 0, 'what fits on one page is one page');
  });

  it('a page of huge messages is cut by size, but holds at least one message and its results', () => {
    const big = Array.from({ length: 20 }, (_, i) => user(`${i} ${'y'.repeat(100_000)}`));
    const start = pageStart(big, big.length);
    assert.equal(start, 18, 'about 256 KB: two messages of 100 KB');
    const oneHuge = [user('a'), user('z'.repeat(2_000_000))];
    assert.equal(pageStart(oneHuge, 2), 1);
    // A call with many results whose previews pass the size: still one page with its call.
    const wide = [...turn(0, 0), ...turn(1, 140, 5_000)];
    assert.equal(wide[pageStart(wide, wide.length)].role, 'assistant');
  });

  it('opening shows the newest page; each older page joins the shown items exactly, down to the beginning', async () => {
    const p = new ChatPresenter(() => {});
    const all = session(650);
    p.load(all);
    const first = p.view();
    assert.equal(first.hasOlder, true);
    assert.ok(first.items.length < messagesToItems(all).length / 3, `${first.items.length} items on open`);
    assert.deepEqual(first.items, messagesToItems(all).slice(-first.items.length), 'the newest page, with the ids a full load gives');
    let pages = 0;
    while (p.view().hasOlder) {
      const before = p.view().items[0].id;
      const page = await p.olderPage(before);
      assert.ok(page.items.length > 0);
      assert.equal(page.hasOlder, p.view().hasOlder);
      assert.equal(p.view().items[page.items.length].id, before, 'the page sits right above what was shown');
      pages++;
    }
    assert.ok(pages >= 3, `${pages} older pages`);
    // Tool cards have their call and result together: the whole list is what one full load gives.
    assert.deepEqual(p.view().items, messagesToItems(all));
    assert.ok(
      p
        .view()
        .items.filter((i) => i.kind === 'tool')
        .every((i) => i.kind === 'tool' && i.args !== '' && i.status === 'done'),
    );
    // The last page said there is nothing before it; asking again adds nothing.
    const last = await p.olderPage(p.view().items[0].id);
    assert.ok(last.items.length === 0 && !last.hasOlder);
  });

  it("a reopened session's compaction cards come above its first message: with the oldest page, once", async () => {
    const p = new ChatPresenter(() => {});
    const all = session(650);
    const stored = (id: string) => ({ id, beforeTokens: 90_000, afterTokens: 20_000, durationMs: 10, summary: null });
    p.setUndoAvailable(true);
    p.load(all, { compactions: [stored('cmp_a'), stored('cmp_b')], newestUndoable: true });
    const compactions = () => p.view().items.filter((i) => i.kind === 'compaction');
    assert.equal(compactions().length, 0, 'not on the newest page of a long session');
    while (p.view().hasOlder) await p.olderPage(p.view().items[0].id);
    assert.deepEqual(
      p
        .view()
        .items.slice(0, 2)
        .map((i) => i.id),
      ['hcmp_a', 'hcmp_b'],
    );
    assert.deepEqual(p.view().items.slice(2), messagesToItems(all));
    const newest = compactions()[1];
    assert.ok(newest.kind === 'compaction' && newest.canUndo === true, 'the newest keeps Undo');
    p.load(all.slice(-4), { compactions: [stored('cmp_a')], newestUndoable: false });
    assert.equal(p.view().items[0].id, 'hcmp_a', 'a short session shows them at once');
  });

  it('a request for a page before an item that is no longer first (a session switched meanwhile) adds nothing', async () => {
    const p = new ChatPresenter(() => {});
    p.load(session(400));
    const shown = p.view().items.length;
    const page = await p.olderPage('m3');
    assert.ok(page.items.length === 0 && page.hasOlder);
    assert.equal(p.view().items.length, shown);
  });

  it('an empty session and a short one have nothing older', () => {
    const p = new ChatPresenter(() => {});
    p.load([]);
    assert.deepEqual([p.view().items, p.view().hasOlder], [[], false]);
    p.load(session(20));
    assert.equal(p.view().hasOlder, false);
    assert.deepEqual(p.view().items, messagesToItems(session(20)));
  });

  it('the page request is validated on both sides: an empty or oversized id, or a page without hasOlder, is refused', () => {
    const [input, output] = REQUESTS['transcript/older'];
    assert.ok(input.safeParse({ beforeId: 'm450' }).success);
    assert.ok(!input.safeParse({ beforeId: '' }).success);
    assert.ok(!input.safeParse({ beforeId: 'x'.repeat(201) }).success);
    assert.ok(!input.safeParse({}).success);
    const item = { kind: 'user', id: 'm1', text: 'hi' };
    assert.ok(output.safeParse({ items: [item], hasOlder: false }).success);
    assert.ok(!output.safeParse({ items: [item] }).success);
    assert.ok(!output.safeParse({ items: [{ kind: 'nope', id: 'm1' }], hasOlder: true }).success);
  });

  it('a restored context appended below does not disturb paging the loaded history above it', () => {
    const p = new ChatPresenter(() => {});
    const all = session(400);
    p.load(all);
    p.continueWith([user('restored')], 'restore');
    const shown = p.view().items;
    assert.equal(shown.at(-1)?.kind, 'user');
    void p.olderPage(shown[0].id);
    const items = p.view().items;
    assert.ok(items.length > shown.length);
    assert.deepEqual(items.slice(-shown.length), shown, 'what was shown, the divider and the restored context, stays below');
  });
});
