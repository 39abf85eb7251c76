/**
 * The top of the conversation when a session is longer than what the panel shows: asks the host for
 * the page before the first item when it scrolls into view (an IntersectionObserver, a little ahead
 * of the top), or when the "Load earlier messages" button is pressed (keyboard and screen readers);
 * says "Loading earlier messages…" while it waits and "Beginning of session" when nothing is older.
 */
import { h } from './dom';

export type OlderState = 'more' | 'loading' | 'start';

export class OlderHistory {
  readonly element = h('div', { class: 'hr-older', 'data-testid': 'older' });
  private readonly button = h(
    'button',
    { class: 'hr-link', 'data-testid': 'load-older', 'aria-label': 'Load earlier messages of this session' },
    'Load earlier messages',
  );
  private readonly observer: IntersectionObserver;
  private state: OlderState = 'start';

  /** @param ask asks the host for the page before the first item shown. */
  constructor(
    root: HTMLElement,
    private readonly ask: () => void,
  ) {
    this.button.addEventListener('click', () => this.request());
    this.observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) this.request();
      },
      { root, rootMargin: '400px 0px 0px 0px' },
    );
    this.observer.observe(this.element);
    this.render();
  }

  /** What the host said: more pages before the first item, or none. A page that arrived ends the wait. */
  set(hasOlder: boolean): void {
    this.state = hasOlder ? 'more' : 'start';
    this.render();
    // Observed again: a page too short to push the top out of view asks for the next one at once.
    this.observer.unobserve(this.element);
    if (hasOlder) this.observer.observe(this.element);
  }

  private request(): void {
    if (this.state !== 'more' || !this.element.isConnected) return;
    this.state = 'loading';
    this.render();
    this.ask();
  }

  private render(): void {
    this.element.dataset.state = this.state;
    if (this.state === 'more') this.element.replaceChildren(this.button);
    else
      this.element.replaceChildren(
        h('span', { class: 'hr-muted', role: 'status' }, this.state === 'loading' ? 'Loading earlier messages…' : 'Beginning of session'),
      );
  }
}
