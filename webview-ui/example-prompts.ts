/**
 * Example prompts on the empty state of a new session: buttons (so Tab reaches them and Enter or
 * Space takes one) that put their text in the prompt box, to edit or send.
 */
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
