/**
 * The conversation: a keyed list of item elements. A reset builds everything in one fragment; an
 * update touches only the items whose ids changed (a streaming answer re-renders itself only).
 * Follows the bottom while the user has not scrolled up; then a "↓ New activity" button says that
 * something arrived below the fold and takes the user there.
 */
import type { Transcript } from '../src/protocol/chat-ops';
import { h } from './dom';
import { ItemContext, renderItem, retryText } from './item-views';
import { OlderHistory } from './older-history';
import { RovingList } from './roving-list';

export class ChatView {
  readonly element = h('div', {
    class: 'hr-chat',
    role: 'log',
    'aria-live': 'polite',
    'aria-label': 'Conversation: arrow keys move between messages',
    // Focusable from script (Escape, scrolling), never a Tab stop: the items are (one at a time).
    tabindex: '-1',
    'data-testid': 'chat',
  });
  private readonly elements = new Map<string, HTMLElement>();
  private readonly empty = h(
    'div',
    { class: 'hr-empty' },
    h('p', {}, 'Ask Headroom to read, search, edit or run things in this workspace.'),
    h(
      'p',
      { class: 'hr-muted' },
      'The meter above shows what fills the context window. Type / for commands: /compact [focus], /clear, /new, /history.',
    ),
  );
  /** Shown when items change below the fold while the user reads further up. */
  readonly newActivity = h(
    'button',
    {
      class: 'hr-new-activity',
      hidden: true,
      'aria-label': 'New activity below: scroll to the newest message',
      'data-testid': 'new-activity',
    },
    '↓ New activity',
  );
  private countdown: ReturnType<typeof setInterval> | undefined;
  /**
   * Follow the newest item. Set from where the user scrolled, compared with where the list last put
   * itself (`autoTop`): items render lazily (content-visibility), so heights change under a list that
   * has not scrolled, and the end alone says nothing.
   */
  private stick = true;
  /** Where the list last scrolled itself to. */
  private autoTop = 0;
  /** Where the user last scrolled to (kept while the list is detached). */
  private readTop = 0;
  /** "Load earlier messages" / "Beginning of session" above the first item. */
  private readonly older: OlderHistory;
  /** One Tab stop for the whole conversation; the arrow keys move between its items. */
  private readonly roving: RovingList;

  /** @param askOlder asks the host for the page before the item with this id (the first shown). */
  constructor(
    private readonly transcript: Transcript,
    private readonly ctx: ItemContext,
    askOlder: (beforeId: string) => void,
  ) {
    this.older = new OlderHistory(this.element, () => {
      const first = this.transcript.items[0];
      if (first) askOlder(first.id);
    });
    this.roving = new RovingList(this.element, (el) => el.hasAttribute('data-item'));
    this.element.addEventListener('scroll', () => {
      if (this.element.isConnected) this.readTop = this.element.scrollTop;
      this.syncStick();
      if (this.stick) this.newActivity.hidden = true;
    });
    this.newActivity.addEventListener('click', () => this.follow());
    if (ctx.examples) this.empty.append(ctx.examples);
  }

  /** Goes to the newest item and follows it again (after Send, or the "New activity" button). */
  follow(): void {
    this.stick = true;
    this.newActivity.hidden = true;
    this.toBottom();
  }

  /**
   * The list is on screen again (back from the history view, where it was detached and lost its
   * scroll position): to the newest item when it was following (a restore or an undo from the
   * history lands there), else back where the user was reading.
   */
  shown(): void {
    if (this.stick) this.toBottom();
    else this.element.scrollTop = this.readTop;
  }

  /**
   * Rebuilds every item (a snapshot arrived); scrolls to `scrollTop`, or to the bottom when null.
   * `hasOlder`: the session has items before the first of these (paged in as the user scrolls up).
   */
  reset(scrollTop: number | null = null, hasOlder = false): void {
    this.elements.clear();
    const frag = document.createDocumentFragment();
    for (const item of this.transcript.items) {
      const el = this.render(item.id);
      this.elements.set(item.id, el);
      frag.append(el);
    }
    if (this.transcript.items.length) this.element.replaceChildren(this.older.element, frag);
    else this.element.replaceChildren(this.empty);
    this.older.set(hasOlder);
    this.roving.refresh();
    this.stick = scrollTop === null;
    if (scrollTop !== null) this.element.scrollTop = scrollTop;
    else this.toBottom();
    if (scrollTop !== null) this.autoTop = this.element.scrollTop;
    this.syncCountdown();
  }

  /**
   * Puts a page of older items (already prepended to the transcript) above the first one shown and
   * keeps what the user was looking at where it was: the first item before stays at the same place
   * on screen, so the list does not jump.
   */
  prepend(ids: readonly string[], hasOlder: boolean): void {
    const anchor = this.older.element.nextElementSibling;
    const before = anchor?.getBoundingClientRect().top ?? 0;
    const frag = document.createDocumentFragment();
    for (const id of ids) {
      const item = this.transcript.get(id);
      if (!item) continue;
      const el = this.render(id);
      this.elements.set(id, el);
      frag.append(el);
    }
    this.roving.refresh();
    if (this.older.element.isConnected) this.older.element.after(frag);
    this.older.set(hasOlder);
    if (anchor) this.element.scrollTop += anchor.getBoundingClientRect().top - before;
    this.autoTop = this.element.scrollTop;
  }

  /** Re-renders the items with these ids (added, changed or removed). */
  update(ids: Iterable<string>): void {
    // Where the user is now decides, not only the last scroll event: on a busy machine new items can
    // arrive before the event of the user's scroll is dispatched (it waits for the next frame).
    this.syncStick();
    if (this.empty.isConnected) {
      this.empty.remove();
      this.element.prepend(this.older.element);
    }
    const changed: HTMLElement[] = [];
    for (const id of ids) {
      const item = this.transcript.get(id);
      const old = this.elements.get(id);
      if (!item) {
        old?.remove();
        this.elements.delete(id);
        continue;
      }
      const el = this.render(id);
      this.elements.set(id, el);
      changed.push(el);
      const focused = old?.contains(document.activeElement) === true;
      if (old) old.replaceWith(el);
      else this.insert(id, el);
      // A re-rendered item keeps the keyboard where it was (a streaming answer re-renders often).
      if (focused) el.focus({ preventScroll: true });
    }
    if (!this.transcript.items.length) this.element.replaceChildren(this.empty);
    this.roving.refresh(changed);
    if (this.stick) this.toBottom();
    else this.newActivity.hidden = false;
    this.syncCountdown();
  }

  /** An item's element, marked as one of the list's items (a separator is not one: it says where, it is not read). */
  private render(id: string): HTMLElement {
    const el = renderItem(this.transcript.get(id)!, this.ctx);
    if (el.getAttribute('role') !== 'separator') {
      el.dataset.item = id;
      // A tool card is a native disclosure (details), which takes no other role.
      if (!el.hasAttribute('role') && el.tagName !== 'DETAILS') el.setAttribute('role', 'article');
    }
    return el;
  }

  private insert(id: string, el: HTMLElement): void {
    const items = this.transcript.items;
    const at = items.findIndex((i) => i.id === id);
    for (let j = at + 1; j > 0 && j < items.length; j++) {
      const next = this.elements.get(items[j].id);
      if (next?.isConnected) {
        next.before(el);
        return;
      }
    }
    this.element.append(el);
  }

  /**
   * Scrolls to the end, then again each frame while lazily rendered items near the end grow to their
   * real heights (they get them only after the frame's rAF callbacks, so it waits for three quiet frames).
   */
  private toBottom(frames = 20, quiet = 0): void {
    const e = this.element;
    const height = e.scrollHeight;
    e.scrollTop = height;
    this.autoTop = e.scrollTop;
    if (frames <= 0 || quiet >= 3) return;
    requestAnimationFrame(() => {
      if (!this.stick) return;
      const still = e.scrollHeight === height && e.scrollHeight - e.scrollTop - e.clientHeight <= 1;
      this.toBottom(frames - 1, still ? quiet + 1 : 0);
    });
  }

  /**
   * Up from where the list last put itself and away from the end is the user's: the list stops
   * following. Reaching the end follows again. A scrollTop clamped because lazily rendered items shrank
   * (or the panel grew) stays at the end, so it is not mistaken for the user; a height that changed since
   * the list last followed (a block highlighted, the side bar resized) does not hide the user's scroll.
   * Only while the list is laid out (a detached or hidden list reads 0).
   */
  private syncStick(): void {
    if (!this.element.isConnected || this.element.clientHeight === 0) return;
    if (this.element.scrollTop < this.autoTop - 2 && !this.atBottom()) this.stick = false;
    else if (this.atBottom()) this.stick = true;
  }

  private atBottom(): boolean {
    const e = this.element;
    return e.scrollHeight - e.scrollTop - e.clientHeight < 40;
  }

  /** Ticks the retry countdowns once a second while any is shown. */
  private syncCountdown(): void {
    const any = () => this.element.querySelector('[data-retry-at]') !== null;
    if (this.countdown === undefined && any()) {
      this.countdown = setInterval(() => {
        const spans = this.element.querySelectorAll<HTMLElement>('[data-retry-at]');
        if (!spans.length) {
          clearInterval(this.countdown);
          this.countdown = undefined;
          return;
        }
        for (const s of spans) s.textContent = retryText(Number(s.dataset.retryAt), Number(s.dataset.attempt));
      }, 1000);
    }
  }
}
