/** Tiny DOM builder: `h('div', {class: 'x', 'aria-label': 'y'}, child, 'text')`. Text is never parsed as HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Array<Node | string | null | undefined | false>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

/**
 * Re-renders `region` without losing the user's place: the control that had the focus (found again by
 * its `data-focus` key, else its accessible name) gets it back, and a text field its caret, so a refresh
 * that arrives while someone types or tabs does not throw them out.
 */
export function keepingFocus(region: HTMLElement, render: () => void): void {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && region.contains(active) ? focusKey(active) : null;
  const caret = active instanceof HTMLInputElement ? ([active.selectionStart, active.selectionEnd] as const) : null;
  render();
  if (!key) return;
  const again = [...region.querySelectorAll<HTMLElement>('[data-focus], [aria-label]')].find((el) => focusKey(el) === key);
  if (!again || again === document.activeElement) return;
  again.focus({ preventScroll: true });
  if (caret && again instanceof HTMLInputElement) again.setSelectionRange(caret[0], caret[1]);
}

const focusKey = (el: HTMLElement): string | null => el.dataset.focus ?? el.getAttribute('aria-label');
