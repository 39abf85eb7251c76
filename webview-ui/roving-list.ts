/**
 * One Tab stop for a long list (the conversation): only the current item is in the tab order; the
 * arrow keys, Home and End move between items (WAI-ARIA Authoring Practices, "roving tabindex":
 * https://www.w3.org/WAI/ARIA/apg/practices/keyboard-interface/#kbd_roving_tabindex). The buttons,
 * links and code blocks of the current item stay reachable with Tab; those of every other item are
 * taken out of the tab order until their item becomes the current one.
 */

/** What can take focus inside an item (its own controls). */
const CONTROLS = 'a[href], button, input, select, textarea, summary, [tabindex]';

export class RovingList {
  private current: HTMLElement | undefined;

  /** @param list the list; its item elements are the children that `isItem` accepts. */
  constructor(
    private readonly list: HTMLElement,
    private readonly isItem: (el: Element) => boolean,
  ) {
    list.addEventListener('keydown', (e) => this.onKey(e));
    list.addEventListener('focusin', (e) => {
      const item = this.itemOf(e.target as Node);
      if (item && item !== this.current) this.makeCurrent(item);
    });
  }

  /** After items were added, replaced or removed: exactly one item (the current, else the newest) is a stop. */
  refresh(changed: Iterable<HTMLElement> = this.items()): void {
    if (!this.current?.isConnected) this.current = this.items().at(-1);
    for (const el of changed) if (el !== this.current) this.park(el);
    if (this.current) this.unpark(this.current);
  }

  private items(): HTMLElement[] {
    return [...this.list.children].filter((c): c is HTMLElement => c instanceof HTMLElement && this.isItem(c));
  }

  private itemOf(node: Node): HTMLElement | undefined {
    let n: Node | null = node;
    while (n && n.parentNode !== this.list) n = n.parentNode;
    return n instanceof HTMLElement && this.isItem(n) ? n : undefined;
  }

  private makeCurrent(item: HTMLElement): void {
    if (this.current && this.current !== item && this.current.isConnected) this.park(this.current);
    this.current = item;
    this.unpark(item);
  }

  /** Out of the tab order: the item and its controls (their own tabindex is kept to give back). */
  private park(item: HTMLElement): void {
    item.tabIndex = -1;
    for (const c of item.querySelectorAll<HTMLElement>(CONTROLS)) {
      if (c.dataset.rovingTabindex !== undefined) continue;
      c.dataset.rovingTabindex = c.getAttribute('tabindex') ?? '';
      c.tabIndex = -1;
    }
  }

  private unpark(item: HTMLElement): void {
    item.tabIndex = 0;
    for (const c of item.querySelectorAll<HTMLElement>('[data-roving-tabindex]')) {
      const was = c.dataset.rovingTabindex;
      delete c.dataset.rovingTabindex;
      if (was) c.setAttribute('tabindex', was);
      else c.removeAttribute('tabindex');
    }
  }

  private onKey(e: KeyboardEvent): void {
    // Only on an item itself: inside a text field or a code block the arrows are the field's.
    const item = e.target instanceof HTMLElement && e.target.parentNode === this.list && this.isItem(e.target) ? e.target : undefined;
    if (!item || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const items = this.items();
    const at = items.indexOf(item);
    const to =
      e.key === 'ArrowDown'
        ? items[at + 1]
        : e.key === 'ArrowUp'
          ? items[at - 1]
          : e.key === 'Home'
            ? items[0]
            : e.key === 'End'
              ? items.at(-1)
              : undefined;
    if (!to) return;
    e.preventDefault();
    this.makeCurrent(to);
    to.focus();
  }
}
