/**
 * "Work so far": the work ledger as a collapsible section above the chat — files read, created and
 * modified, commands with their exit codes, errors, the plan with each item's state, decisions. It is
 * kept by code as the turns run and carried into the context after every compaction.
 */
import type { LedgerView } from '../src/protocol/messages';
import { h } from './dom';

const PLAN_MARK: Record<LedgerView['plan'][number]['status'], string> = { done: '✓', in_progress: '◐', open: '○' };
const PLAN_TEXT: Record<LedgerView['plan'][number]['status'], string> = { done: 'done', in_progress: 'in progress', open: 'open' };

/** The section, or an empty placeholder while nothing is recorded. `open` and `onToggle` keep it as the user left it. */
export function renderWorkSoFar(ledger: LedgerView | null | undefined, open: boolean, onToggle: (open: boolean) => void): HTMLElement {
  if (!ledger || ledger.empty) return h('div', { hidden: true, 'data-testid': 'work-so-far' });
  const details = h(
    'details',
    { class: 'hr-work', open, 'data-testid': 'work-so-far' },
    h('summary', {}, h('span', { class: 'hr-work-title' }, 'Work so far'), h('span', { class: 'hr-muted' }, ` · ${ledger.headline}`)),
    group(
      'Plan',
      ledger.plan.map((p) =>
        h(
          'li',
          { class: `hr-plan-${p.status}` },
          h('span', { class: 'hr-mark', 'aria-hidden': 'true' }, PLAN_MARK[p.status]),
          h('span', { class: 'hr-sr-only' }, `${PLAN_TEXT[p.status]}: `),
          p.text,
        ),
      ),
    ),
    group(
      'Files',
      ledger.files.map((f) => h('li', {}, h('span', { class: `hr-badge hr-file-${f.action}` }, f.action), ' ', h('code', {}, f.path))),
    ),
    group(
      'Commands',
      ledger.commands.map((c) =>
        h(
          'li',
          {},
          h('code', {}, c.command),
          h(
            'span',
            { class: c.exitCode === 0 ? 'hr-muted' : 'hr-fail' },
            c.exitCode === null ? ' · stopped' : ` · exit ${c.exitCode}`,
            c.cwd && c.cwd !== '.' ? ` · in ${c.cwd}` : '',
          ),
        ),
      ),
    ),
    group(
      'Errors',
      // The tool's name once: most tools' errors already start with it ("read_file failed: …").
      ledger.errors.map((e) =>
        h(
          'li',
          {},
          e.firstLine.startsWith(`${e.tool} `) ? null : h('span', { class: 'hr-tool-name' }, `${e.tool} `),
          h('span', { class: 'hr-fail' }, e.firstLine),
        ),
      ),
    ),
    group(
      'Decisions',
      ledger.decisions.map((d) => h('li', {}, d.text, h('span', { class: 'hr-muted' }, d.by === 'user' ? ' (you)' : ' (Headroom)'))),
    ),
    ledger.rolledUp ? h('p', { class: 'hr-muted' }, ledger.rolledUp) : null,
  );
  details.addEventListener('toggle', () => onToggle(details.open));
  return details;
}

function group(title: string, items: HTMLElement[]): HTMLElement | null {
  if (!items.length) return null;
  return h(
    'div',
    { class: 'hr-work-group' },
    h('div', { class: 'hr-label' }, title),
    h('ul', { class: 'hr-lines', 'aria-label': title }, ...items),
  );
}
