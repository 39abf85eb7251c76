/**
 * What the palette commands need of VS Code's UI: a pick list, an input box, a notification, a
 * read-only markdown document, and localization. A port so the commands stay vscode-free and unit
 * tested; `vscode-palette-ui.ts` is the VS Code side.
 */

/** An item of a pick list; `T` carries what the command needs back (an id, a stored result). */
export interface PickItem {
  readonly label: string;
  readonly description?: string;
  readonly detail?: string;
}

export interface PickOptions {
  readonly title: string;
  readonly placeHolder?: string;
  /** Filter on `detail` too. */
  readonly matchOnDetail?: boolean;
}

export interface InputOptions {
  readonly title: string;
  readonly prompt?: string;
  readonly placeHolder?: string;
  /** A message while the typed text cannot be accepted, else undefined. */
  readonly validateInput?: (value: string) => string | undefined;
}

/** A button on a pick item: a codicon's name (`search`, not `$(search)`) and its tooltip. */
export interface PickButton {
  readonly icon: string;
  readonly tooltip: string;
}

/** An item of a live pick list; VS Code neither filters nor reorders them (the search did). */
export interface LivePickItem extends PickItem {
  readonly buttons?: readonly PickButton[];
}

export interface LivePickOptions {
  readonly title: string;
  /** Shown while nothing is typed. */
  readonly placeHolder?: string;
  /** Called with the typed text at every change, never before `livePick` returned. */
  readonly onValue: (value: string) => void;
}

/** A pick list whose items follow what is typed (a search as one types). */
export interface LivePick<T extends LivePickItem> {
  /** Replaces the items; `busy` shows progress; `summary` follows the title ("12 matches in 3 sessions"). */
  show(items: readonly T[], state: { busy: boolean; summary?: string }): void;
  /** The accepted item, or the item one of whose buttons was pressed; undefined when dismissed. */
  readonly answer: Promise<{ item: T; button?: PickButton } | undefined>;
}

export interface PaletteUi {
  /** `vscode.l10n.t`: the message in the user's language, `{0}`… replaced by `args`. */
  t(message: string, ...args: Array<string | number>): string;
  /** The picked item, or undefined when the user dismissed the list. */
  pick<T extends PickItem>(items: readonly T[], options: PickOptions): Promise<T | undefined>;
  /** A pick list that asks the caller for its items as the user types (`LivePick`). */
  livePick<T extends LivePickItem>(options: LivePickOptions): LivePick<T>;
  /** The typed text ('' when accepted empty), or undefined when the user dismissed the box. */
  input(options: InputOptions): Promise<string | undefined>;
  /** An information notification; not awaited. */
  info(message: string): void;
  /** Shows markdown in a read-only preview editor tab named `title`. */
  openMarkdown(content: string, title?: string): Promise<void>;
}
