/**
 * Applies transcript ops to a list of items. Shared by the host (which keeps the transcript to
 * re-send it when the webview is shown again) and the webview (which renders it). Pure; never throws:
 * an op for an unknown id is ignored, an append of a known id replaces the item, an insert of a known
 * id is ignored and an insert before an unknown id appends.
 */
import type { ChatItem, ChatOp } from './view-models';

/** Mutable transcript state: ordered items with an index by id. */
export class Transcript {
  private readonly list: ChatItem[] = [];
  private readonly index = new Map<string, number>();

  constructor(items: readonly ChatItem[] = []) {
    for (const item of items) this.apply({ op: 'append', item });
  }

  get items(): readonly ChatItem[] {
    return this.list;
  }

  /** The ids from the last user item to the end (a prompt and what answered it); none without a user item. */
  idsFromLastUser(): string[] {
    const at = this.list.map((i) => i.kind).lastIndexOf('user');
    return at < 0 ? [] : this.list.slice(at).map((i) => i.id);
  }

  get(id: string): ChatItem | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.list[i];
  }

  /** Applies one op; returns the id it touched, or undefined when it was ignored. */
  apply(op: ChatOp): string | undefined {
    switch (op.op) {
      case 'append':
      case 'update': {
        const i = this.index.get(op.item.id);
        if (i !== undefined) this.list[i] = op.item;
        else if (op.op === 'append') {
          this.index.set(op.item.id, this.list.length);
          this.list.push(op.item);
        } else return undefined;
        return op.item.id;
      }
      case 'delta': {
        const i = this.index.get(op.id);
        if (i === undefined) return undefined;
        const item = this.list[i];
        const field = op.field;
        if (field === 'text' && (item.kind === 'assistant' || item.kind === 'user')) this.list[i] = { ...item, text: item.text + op.text };
        else if (field === 'reasoning' && item.kind === 'assistant')
          this.list[i] = { ...item, reasoning: (item.reasoning ?? '') + op.text };
        else if (field === 'output' && item.kind === 'tool') this.list[i] = { ...item, output: item.output + op.text };
        else return undefined;
        return op.id;
      }
      case 'insert': {
        if (this.index.has(op.item.id)) return undefined;
        const at = this.index.get(op.before);
        if (at === undefined) return this.apply({ op: 'append', item: op.item });
        this.list.splice(at, 0, op.item);
        for (let j = at; j < this.list.length; j++) this.index.set(this.list[j].id, j);
        return op.item.id;
      }
      case 'remove': {
        const i = this.index.get(op.id);
        if (i === undefined) return undefined;
        this.list.splice(i, 1);
        this.index.delete(op.id);
        for (let j = i; j < this.list.length; j++) this.index.set(this.list[j].id, j);
        return op.id;
      }
    }
  }

  /**
   * Puts a page of older items before everything (paging history in); an item whose id is already
   * shown is left out. Returns the ids added.
   */
  prepend(items: readonly ChatItem[]): string[] {
    const ids = new Set(this.index.keys());
    const fresh = items.filter((item) => !ids.has(item.id) && !!ids.add(item.id));
    this.list.unshift(...fresh);
    this.list.forEach((item, j) => this.index.set(item.id, j));
    return fresh.map((i) => i.id);
  }

  /** Replaces everything (a session was opened, cleared or restored). */
  reset(items: readonly ChatItem[]): void {
    this.list.length = 0;
    this.index.clear();
    for (const item of items) this.apply({ op: 'append', item });
  }
}
