/**
 * The prompt box: Enter sends, Shift+Enter adds a line, `/` offers the slash commands (↑/↓ to pick,
 * Tab or Enter to take, Escape to close). While a turn runs, Stop appears beside Send, and what is
 * sent then is queued for the running turn (steering): shown above the box until the agent takes it.
 */
import { h } from './dom';
import { ComposerIntent, completeSlash, parseComposer, SlashCommand } from './slash';

export interface ComposerOptions {
  draft: string;
  onDraft(text: string): void;
  /** Returns false when the intent could not be carried out (the text then stays). */
  onIntent(intent: ComposerIntent): boolean;
  onStop(): void;
}

export class Composer {
  readonly element: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  /** Messages sent while the turn ran, until the agent takes them (their user item arrives). */
  private readonly queued: string[] = [];
  private readonly queueList = h('ul', { class: 'hr-queue', 'aria-label': 'Queued messages', 'data-testid': 'queue', hidden: true });
  private readonly list = h('ul', {
    class: 'hr-completions',
    role: 'listbox',
    id: 'hr-completions',
    'aria-label': 'Slash commands',
    hidden: true,
  });
  private readonly send: HTMLButtonElement;
  private readonly stop: HTMLButtonElement;
  private options: SlashCommand[] = [];
  private selected = 0;
  private enabled = true;
  private blocked = false;
  /** Enter was pressed while a compaction ran: the message in the box sends when it ends. */
  private waiting = false;
  private readonly waitNote = h(
    'p',
    { class: 'hr-wait-note', role: 'status', 'data-testid': 'waiting', hidden: true },
    h('span', { class: 'hr-badge' }, 'waiting'),
    ' Sends when the compaction finishes (editing the message cancels this).',
  );

  constructor(private readonly o: ComposerOptions) {
    this.input = h('textarea', {
      class: 'hr-input',
      rows: '3',
      placeholder: 'Ask Headroom…  (Enter to send, Shift+Enter for a new line, / for commands)',
      'aria-label': 'Message to Headroom',
      'aria-autocomplete': 'list',
      'aria-controls': 'hr-completions',
      'data-testid': 'composer',
    });
    this.input.value = o.draft;
    this.send = h('button', { class: 'hr-send', 'aria-label': 'Send the message', 'data-testid': 'send' }, 'Send');
    this.stop = h('button', { class: 'hr-stop', 'aria-label': 'Stop the running turn', 'data-testid': 'stop', hidden: true }, 'Stop');
    this.element = h(
      'footer',
      { class: 'hr-composer' },
      this.queueList,
      this.waitNote,
      this.list,
      this.input,
      h('div', { class: 'hr-composer-actions' }, this.stop, this.send),
    );
    this.input.addEventListener('input', () => {
      this.setWaiting(false);
      this.o.onDraft(this.input.value);
      this.refreshCompletions();
    });
    this.input.addEventListener('keydown', (e) => this.onKey(e));
    this.send.addEventListener('click', () => this.submit());
    this.stop.addEventListener('click', () => this.o.onStop());
  }

  setRunning(running: boolean): void {
    this.stop.hidden = !running;
    this.send.textContent = running ? 'Queue' : 'Send';
    this.send.setAttribute('aria-label', running ? 'Send: queue the message for the running turn' : 'Send the message');
    this.send.title = running ? 'The agent reads it at its next step' : '';
  }

  /** A message sent while the turn runs waits for the agent's next step ("queued"). */
  queue(text: string): void {
    this.queued.push(text);
    this.showQueue();
  }

  /** The agent took a queued message (its user item arrived): it leaves the queue. */
  taken(text: string): void {
    const i = this.queued.findIndex((q) => q.trim() === text.trim());
    if (i < 0) return;
    this.queued.splice(i, 1);
    this.showQueue();
  }

  /** Stop drops the queued messages on the host: they go back into the box instead of being lost. */
  giveBackQueued(): void {
    if (!this.queued.length) return;
    this.restore(this.queued.splice(0).join('\n'));
    this.showQueue();
  }

  /** Shows the messages waiting for the running turn ("queued · read at the next step"). */
  private showQueue(): void {
    const texts = this.queued;
    this.queueList.hidden = !texts.length;
    this.queueList.replaceChildren(
      ...texts.map((t) =>
        h('li', { class: 'hr-queued' }, h('span', { class: 'hr-badge' }, 'queued'), h('span', { class: 'hr-queued-text', title: t }, t)),
      ),
    );
  }

  /** Puts text back into the box (queued messages dropped by Stop), after what is already there. */
  restore(text: string): void {
    this.input.value = this.input.value.trim() ? `${text}\n${this.input.value}` : text;
    this.o.onDraft(this.input.value);
  }

  setEnabled(enabled: boolean, reason = ''): void {
    this.enabled = enabled;
    this.input.disabled = !enabled;
    this.syncSend();
    this.input.placeholder = enabled ? 'Ask Headroom…  (Enter to send, Shift+Enter for a new line, / for commands)' : reason;
  }

  /**
   * A compaction runs: Send waits for it (typing goes on). Enter then marks the message as waiting,
   * visibly, and it sends once the compaction ends (finished, failed or cancelled).
   */
  setBlocked(blocked: boolean): void {
    this.blocked = blocked;
    this.syncSend();
    if (blocked || !this.waiting) return;
    this.setWaiting(false);
    this.submit();
  }

  private setWaiting(waiting: boolean): void {
    this.waiting = waiting;
    this.waitNote.hidden = !waiting;
  }

  private syncSend(): void {
    this.send.disabled = !this.enabled || this.blocked;
  }

  focus(): void {
    this.input.focus();
  }

  /**
   * The panel focused from the keyboard (Focus Panel's key) with nothing inside to return to (the
   * approval card that had it is answered): the prompt box takes the focus, so typing goes there. A
   * click keeps its own target.
   */
  takeFocusOnPanelEntry(): void {
    let pointerHeld = false;
    document.addEventListener('pointerdown', () => (pointerHeld = true), true);
    document.addEventListener('pointerup', () => (pointerHeld = false), true);
    window.addEventListener('focus', () => {
      // Without scrolling: the reader's place in the chat stays where it is.
      if (!pointerHeld && (!document.activeElement || document.activeElement === document.body)) this.input.focus({ preventScroll: true });
    });
  }

  private onKey(e: KeyboardEvent): void {
    if (e.isComposing) return;
    const open = !this.list.hidden;
    if (open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      this.selected = (this.selected + (e.key === 'ArrowDown' ? 1 : -1) + this.options.length) % this.options.length;
      this.paintCompletions();
    } else if (open && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey))) {
      e.preventDefault();
      this.take(this.options[this.selected]);
    } else if (open && e.key === 'Escape') {
      e.preventDefault();
      this.closeCompletions();
    } else if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      this.submit();
    }
  }

  private submit(): void {
    const intent = parseComposer(this.input.value);
    if (this.enabled && this.blocked && intent.kind === 'prompt') return this.setWaiting(true);
    // Other intents during a compaction go on to the panel, which says why it refuses the ones that must wait.
    if (this.send.disabled && !(this.enabled && this.blocked)) return;
    if (intent.kind === 'empty') return;
    if (!this.o.onIntent(intent)) return;
    this.input.value = '';
    this.o.onDraft('');
    this.closeCompletions();
  }

  private take(c: SlashCommand | undefined): void {
    if (!c) return;
    this.input.value = c.args ? `${c.name} ` : c.name;
    this.o.onDraft(this.input.value);
    this.closeCompletions();
    this.input.focus();
  }

  private refreshCompletions(): void {
    this.options = completeSlash(this.input.value);
    this.selected = 0;
    if (!this.options.length || (this.options.length === 1 && this.options[0].name === this.input.value.trim() && !this.options[0].args)) {
      this.closeCompletions();
      return;
    }
    this.list.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    this.paintCompletions();
  }

  private paintCompletions(): void {
    this.list.replaceChildren(
      ...this.options.map((c, i) => {
        const li = h(
          'li',
          {
            role: 'option',
            id: `hr-opt-${i}`,
            'aria-selected': i === this.selected ? 'true' : 'false',
            class: i === this.selected ? 'hr-selected' : undefined,
          },
          h('span', { class: 'hr-cmd' }, c.name, c.args ? ` ${c.args}` : ''),
          h('span', { class: 'hr-muted' }, c.description),
        );
        li.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.take(c);
        });
        return li;
      }),
    );
    this.input.setAttribute('aria-activedescendant', `hr-opt-${this.selected}`);
  }

  private closeCompletions(): void {
    this.options = [];
    this.list.hidden = true;
    this.list.replaceChildren();
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }
}
