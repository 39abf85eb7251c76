/**
 * @-mentions in the prompt box. Typing `@` opens a listbox of `@selection`, `@problems` and the
 * workspace's files and folders matching what follows the `@` (the host ranks them: the `mention/search`
 * request); ↑/↓ choose, Enter or Tab take, Escape closes. A taken entry is written into the
 * text as `@label` and shown as a chip above the box; the mentions still written in the text when it is
 * sent go with it (`collect`), and the host reads them. The picker sits on the composer's own textarea:
 * its keys are handled in the capture phase on the composer, before the composer's Enter-to-send.
 */
import './mentions.css';
import { mentionLabel, type Mention, type MentionChip, type MentionOption } from '../src/protocol/messages';
import { mentionQuery, written } from './mention-text';
import { h } from './dom';
import { request } from './vscode-api';

interface Row {
  mention: Mention;
  label: string;
  hint: string;
}

const SPECIAL: readonly Row[] = [
  { mention: { kind: 'selection' }, label: 'selection', hint: "The active editor's selection" },
  { mention: { kind: 'problems' }, label: 'problems', hint: 'Errors and warnings in the workspace' },
];

export class MentionPicker {
  private readonly list = h('ul', {
    class: 'hr-completions hr-mentions',
    role: 'listbox',
    id: 'hr-mentions',
    'aria-label': 'Files, folders and sources to mention',
    'data-testid': 'mention-list',
    hidden: true,
  });
  private readonly chips = h('div', { class: 'hr-mention-chips', 'aria-label': 'Mentioned', 'data-testid': 'mention-chips', hidden: true });
  /** Mentions taken in this draft, by label. */
  private readonly picked = new Map<string, Mention>();
  private rows: Row[] = [];
  private selected = 0;
  private query: { start: number; query: string } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param saved the mentions taken in the draft before the webview was re-created
   * @param onTaken called with the taken mentions whenever they change (to keep them with the draft)
   */
  constructor(
    composer: HTMLElement,
    private readonly input: HTMLTextAreaElement,
    saved: readonly Mention[] = [],
    private readonly onTaken: (mentions: Mention[]) => void = () => {},
  ) {
    for (const m of saved) this.picked.set(mentionLabel(m), m);
    composer.insertBefore(this.list, input);
    composer.insertBefore(this.chips, input);
    input.addEventListener('input', () => this.refresh());
    input.addEventListener('click', () => this.refresh());
    input.addEventListener('blur', () => setTimeout(() => this.close(), 150));
    composer.addEventListener('keydown', (e) => this.onKey(e), true);
    this.paintChips();
  }

  /** The mentions still written in `text` (taken ones and a typed `@selection` / `@problems`). */
  collect(text: string): Mention[] {
    const out: Mention[] = [];
    for (const [label, mention] of this.picked) if (written(text, label)) out.push(mention);
    for (const s of SPECIAL) if (!this.picked.has(s.label) && written(text, s.label)) out.push(s.mention);
    return out;
  }

  /** The draft was sent or replaced: forget what was taken. */
  reset(): void {
    this.picked.clear();
    this.onTaken([]);
    this.close();
    this.chips.hidden = true;
    this.chips.replaceChildren();
  }

  /** Remembers mentions an edited prompt already had (their labels are in its text). */
  remember(mentions: readonly Mention[]): void {
    for (const m of mentions) this.picked.set(mentionLabel(m), m);
    this.onTaken([...this.picked.values()]);
    this.paintChips();
  }

  /** "Add Selection to Headroom": writes the mention at the caret and focuses the box. */
  add(mention: Mention): void {
    const label = mentionLabel(mention);
    this.picked.set(label, mention);
    this.onTaken([...this.picked.values()]);
    const v = this.input.value;
    const at = document.activeElement === this.input ? this.input.selectionStart : v.length;
    const before = v.slice(0, at);
    const text = `${before && !/\s$/.test(before) ? ' ' : ''}@${label} `;
    this.input.value = before + text + v.slice(at);
    this.input.focus();
    this.input.setSelectionRange(at + text.length, at + text.length);
    this.input.dispatchEvent(new Event('input'));
  }

  /** The host's rows for a query; a stale answer (the user typed on) is ignored. */
  private results(query: string, options: readonly MentionOption[]): void {
    if (!this.query || this.query.query !== query) return;
    this.rows = [...specialRows(query), ...options.map((o) => ({ mention: o, label: o.path, hint: o.kind }))];
    this.selected = Math.min(this.selected, Math.max(0, this.rows.length - 1));
    this.paint();
  }

  private refresh(): void {
    this.paintChips();
    const q = mentionQuery(this.input.value, this.input.selectionStart);
    if (!q || this.input.selectionStart !== this.input.selectionEnd) {
      this.close();
      return;
    }
    const changed = this.query?.query !== q.query;
    this.query = q;
    if (changed) {
      this.selected = 0;
      this.rows = specialRows(q.query);
      this.paint();
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        // A failed search leaves the special rows (the host shows why in the banner).
        void request('mention/search', { query: q.query }).then(
          ({ options }) => this.results(q.query, options),
          () => {},
        );
      }, 60);
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target !== this.input || e.isComposing || this.list.hidden) return;
    const n = this.rows.length;
    if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && n) {
      this.selected = (this.selected + (e.key === 'ArrowDown' ? 1 : -1) + n) % n;
      this.paint();
    } else if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      if (!n) return;
      this.take(this.rows[this.selected]);
    } else if (e.key === 'Escape') {
      this.close();
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  }

  private take(row: Row | undefined): void {
    const q = this.query;
    if (!row || !q) return;
    this.picked.set(row.label, row.mention);
    this.onTaken([...this.picked.values()]);
    const v = this.input.value;
    const end = q.start + 1 + q.query.length;
    const text = `@${row.label} `;
    this.input.value = v.slice(0, q.start) + text + v.slice(end).replace(/^ /, '');
    const caret = q.start + text.length;
    this.input.setSelectionRange(caret, caret);
    this.close();
    this.input.focus();
    this.input.dispatchEvent(new Event('input'));
  }

  private paint(): void {
    this.list.hidden = false;
    this.input.setAttribute('aria-controls', 'hr-mentions');
    this.input.setAttribute('aria-expanded', 'true');
    if (!this.rows.length) {
      this.list.replaceChildren(h('li', { class: 'hr-muted', 'aria-disabled': 'true' }, 'Nothing matches'));
      this.input.removeAttribute('aria-activedescendant');
      return;
    }
    this.list.replaceChildren(
      ...this.rows.map((r, i) => {
        const li = h(
          'li',
          {
            role: 'option',
            id: `hr-mention-${i}`,
            'aria-selected': i === this.selected ? 'true' : 'false',
            class: i === this.selected ? 'hr-selected' : undefined,
            'data-testid': 'mention-option',
            title: r.label,
          },
          h('span', { class: `hr-mention-kind hr-mention-${r.mention.kind}`, 'aria-hidden': 'true' }, KIND_MARK[r.mention.kind]),
          pathLabel(r.label),
          h('span', { class: 'hr-muted hr-mention-hint' }, r.hint),
        );
        li.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.take(r);
        });
        return li;
      }),
    );
    this.input.setAttribute('aria-activedescendant', `hr-mention-${this.selected}`);
    this.list.querySelector('.hr-selected')?.scrollIntoView({ block: 'nearest' });
  }

  private close(): void {
    clearTimeout(this.timer);
    this.query = undefined;
    if (this.list.hidden) return;
    this.list.hidden = true;
    this.list.replaceChildren();
    this.input.setAttribute('aria-controls', 'hr-completions');
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }

  /** The chips above the box: the mentions written in the draft now. */
  private paintChips(): void {
    const shown = this.collect(this.input.value);
    this.chips.hidden = !shown.length;
    this.chips.replaceChildren(...shown.map((m) => chip({ kind: m.kind, label: mentionLabel(m) })));
  }
}

const KIND_MARK: Record<Mention['kind'], string> = { file: '▤', folder: '▰', selection: '⌶', range: '⌶', problems: '⚠' };

function specialRows(query: string): Row[] {
  const q = query.toLowerCase();
  return SPECIAL.filter((s) => s.label.startsWith(q));
}

/** "src/panel/" muted, then the name: the part people scan for. */
function pathLabel(label: string): HTMLElement {
  const cut = label.lastIndexOf('/') + 1;
  return h('span', { class: 'hr-mention-path' }, h('span', { class: 'hr-mention-dir' }, label.slice(0, cut)), label.slice(cut));
}

/**
 * A mention as a chip: in the composer, and in a sent prompt's bubble (there a file chip is a link that
 * opens the file, and one that was not attached says why).
 */
export function chip(c: MentionChip, open?: (path: string, line?: number) => void): HTMLElement {
  const title = c.problem
    ? `Not attached: ${c.problem}`
    : c.stored
      ? 'Too large for the context: stored, the model reads it on demand'
      : c.label;
  const body = [
    h('span', { class: `hr-mention-kind hr-mention-${c.kind}`, 'aria-hidden': 'true' }, KIND_MARK[c.kind]),
    h('span', { class: 'hr-chip-label' }, `@${c.label}`),
    c.stored ? h('span', { class: 'hr-chip-note' }, 'stored') : null,
    c.problem ? h('span', { class: 'hr-chip-note' }, 'not attached') : null,
  ];
  const cls = `hr-chip${c.problem ? ' hr-chip-refused' : ''}`;
  if (!open || !c.path || c.problem) return h('span', { class: cls, title, 'data-testid': 'mention-chip' }, ...body);
  const line = /:(\d+)(?:-\d+)?$/.exec(c.label);
  const b = h('button', { class: `${cls} hr-chip-link`, title: `Open ${c.path}`, 'data-testid': 'mention-chip' }, ...body);
  b.addEventListener('click', () => open(c.path!, line && c.kind !== 'file' && c.kind !== 'folder' ? Number(line[1]) : undefined));
  return b;
}
