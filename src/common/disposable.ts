/** Something that holds a resource and releases it when disposed. Disposing twice is harmless. */
export interface IDisposable {
  dispose(): void;
}

/** Wraps a function as a disposable that runs it at most once. */
export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}

/**
 * Base class for long-lived objects: children registered with `_register` are disposed with it,
 * in reverse order of registration. Never throws from `dispose` because of a child.
 */
export abstract class Disposable implements IDisposable {
  private readonly _children: IDisposable[] = [];
  private _disposed = false;

  protected get isDisposed(): boolean {
    return this._disposed;
  }

  protected _register<T extends IDisposable>(child: T): T {
    if (this._disposed) {
      child.dispose();
    } else {
      this._children.push(child);
    }
    return child;
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    for (const child of this._children.splice(0).reverse()) {
      try {
        child.dispose();
      } catch {
        // One child failing must not keep the others alive.
      }
    }
  }
}
