/**
 * Edit-and-resend of the last prompt. The last prompt's Edit button (shown only while no turn runs),
 * or ↑ in an empty prompt box, puts that prompt back in the box with its mentions; a line above the box
 * says it will replace the last turn, and Escape or Cancel gives up. Sending it then asks the host for
 * `prompt/resend` instead of `prompt/submit` (`take`).
 */
import type { ChatItem, ChatItemOf, ImageAttachment } from '../src/protocol/messages';
import { h } from './dom';
import { chipMention } from './mention-text';
import { MentionPicker } from './mentions';
import { saveUi, state } from './state';
import { send } from './vscode-api';

export interface PromptEditOptions {
  running(): boolean;
  items(): readonly ChatItem[];
  picker: MentionPicker;
}

export class PromptEditor {
  private editing = false;
  private readonly cancelButton = h('button', { class: 'hr-link', 'data-testid': 'edit-cancel' }, 'Cancel');
  private readonly line = h(
    'div',
    { class: 'hr-editing', role: 'status', 'data-testid': 'editing', hidden: true },
    h('span', {}, 'Editing your last message: sending it replaces that turn and its answer.'),
    this.cancelButton,
  );

  constructor(
    composer: HTMLElement,
    private readonly input: HTMLTextAreaElement,
    private readonly chat: HTMLElement,
    private readonly o: PromptEditOptions,
  ) {
    composer.insertBefore(this.line, input);
    this.cancelButton.addEventListener('click', () => {
      this.cancel(true);
      this.input.focus();
    });
    composer.addEventListener('keydown', (e) => this.onKey(e), true);
    chat.addEventListener('click', (e) => {
      const id = (e.target as HTMLElement).closest<HTMLElement>('[data-edit]')?.dataset.edit;
      const item = id ? this.o.items().find((i) => i.id === id) : undefined;
      if (item?.kind === 'user') this.start(item);
    });
  }

  /** Whether the prompt being sent is an edit of the last one (and stops editing). */
  take(): boolean {
    const was = this.editing && !this.o.running();
    this.cancel(false);
    return was;
  }

  /**
   * A rewound prompt comes back to the box (with its mentions) to edit and send as a new turn; a draft
   * already in the box stays after it.
   */
  giveBack(text: string, mentions: NonNullable<ChatItemOf<'user'>['mentions']>): void {
    this.cancel(false);
    const draft = this.input.value.trim();
    this.input.value = draft ? `${text}\n\n${draft}` : text;
    this.o.picker.remember(mentions.flatMap((c) => chipMention(c) ?? []));
    this.input.focus();
    this.input.setSelectionRange(text.length, text.length);
    this.input.dispatchEvent(new Event('input'));
  }

  /** Marks the last prompt so its Edit button shows (CSS hides it while a turn runs). */
  markLast(): void {
    for (const el of this.chat.querySelectorAll('.hr-last-prompt')) el.classList.remove('hr-last-prompt');
    const last = this.lastPrompt();
    if (last) this.chat.querySelector(`[data-id="${CSS.escape(last.id)}"]`)?.classList.add('hr-last-prompt');
  }

  private lastPrompt(): ChatItemOf<'user'> | undefined {
    const items = this.o.items();
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (item.kind === 'user') return item;
      // Behind a divider the prompt is no longer in the model's context: there is nothing to replace.
      if (item.kind === 'divider' || item.kind === 'summary') return undefined;
    }
    return undefined;
  }

  private start(item: ChatItemOf<'user'>): void {
    if (this.o.running()) return;
    this.o.picker.reset();
    this.input.value = item.text;
    this.o.picker.remember((item.mentions ?? []).flatMap((c) => chipMention(c) ?? []));
    this.editing = true;
    this.line.hidden = false;
    this.input.focus();
    this.input.setSelectionRange(item.text.length, item.text.length);
    this.input.dispatchEvent(new Event('input'));
  }

  private cancel(clear: boolean): void {
    if (!this.editing) return;
    this.editing = false;
    this.line.hidden = true;
    if (clear) {
      this.input.value = '';
      this.o.picker.reset();
      this.input.dispatchEvent(new Event('input'));
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target !== this.input || e.isComposing || e.defaultPrevented) return;
    if (e.key === 'ArrowUp' && !this.input.value && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const last = this.lastPrompt();
      if (!last || this.o.running()) return;
      e.preventDefault();
      this.start(last);
    } else if (e.key === 'Escape' && this.editing) {
      e.preventDefault();
      e.stopPropagation();
      this.cancel(true);
    }
  }
}

/**
 * The prompt box's @-mentions and edit-and-resend, on the composer's own textarea. `send` sends a
 * prompt with its mentions (and images): as `prompt/resend` when it is an edit of the last one.
 */
export function promptExtras(composer: HTMLElement, chat: HTMLElement) {
  const input = composer.querySelector('textarea')!;
  // The taken mentions are kept with the draft: a re-created webview still sends them.
  const mentions = new MentionPicker(composer, input, state.ui.mentions, (taken) => saveUi({ mentions: taken }));
  const editor = new PromptEditor(composer, input, chat, {
    running: () => state.running,
    items: () => state.transcript.items,
    picker: mentions,
  });
  return {
    mentions,
    editor,
    send(text: string, extra: { images?: ImageAttachment[] }): void {
      const picked = mentions.collect(text);
      const prompt = { text, ...extra, ...(picked.length ? { mentions: picked } : {}) };
      send(editor.take() ? { type: 'prompt/resend', ...prompt } : { type: 'prompt/submit', ...prompt });
      mentions.reset();
    },
  };
}
