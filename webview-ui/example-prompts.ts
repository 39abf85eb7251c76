/**
 * Example prompts on the empty state of a new session: buttons (so Tab reaches them and Enter or
 * Space takes one) that put their text in the prompt box, to edit or send; Test connection below them.
 */
import type { ConfigView } from '../src/protocol/messages';
import { renderConnectionTest } from './connection-test';
import { h } from './dom';

export const EXAMPLE_PROMPTS: readonly string[] = [
  "Explain this workspace's structure",
  'Find where errors are handled and summarize the approach',
  'Look for bugs in the file I have open',
  'Write tests for the most important module',
];

export function renderExamplePrompts(onPick: (text: string) => void): HTMLElement {
  return h(
    'div',
    { class: 'hr-examples', 'data-testid': 'examples' },
    h('p', { class: 'hr-muted', id: 'hr-examples-label' }, 'Try one of these:'),
    h(
      'ul',
      { class: 'hr-example-list', 'aria-labelledby': 'hr-examples-label' },
      ...EXAMPLE_PROMPTS.map((text) => {
        const button = h('button', { class: 'hr-example', 'data-testid': 'example' }, text);
        button.addEventListener('click', () => onPick(text));
        return h('li', {}, button);
      }),
    ),
    h('p', { class: 'hr-muted' }, 'Paste an image to ask about it (in VS Code, hold Shift to drop one).'),
  );
}

/** What the empty state adds to its words: the example prompts, then Test connection for the current configuration. */
export class EmptyStateExtras {
  private readonly connection = h('div');
  readonly element: HTMLElement;

  constructor(onPick: (text: string) => void) {
    this.element = h('div', {}, renderExamplePrompts(onPick), this.connection);
  }

  setConfig(config: ConfigView): void {
    this.connection.replaceChildren(renderConnectionTest(config));
  }
}
