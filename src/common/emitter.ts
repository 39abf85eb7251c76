import { IDisposable, toDisposable } from './disposable';

/** A subscription function: call it with a listener, dispose the result to unsubscribe. */
export type Event<T> = (listener: (e: T) => void) => IDisposable;

/**
 * A minimal typed event emitter in the VS Code style:
 * `private readonly _onDidX = new Emitter<T>(); readonly onDidX = this._onDidX.event;`
 * A listener that throws does not stop the others; the error goes to `onListenerError`.
 */
export class Emitter<T> implements IDisposable {
  private listeners = new Set<(e: T) => void>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  };

  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
