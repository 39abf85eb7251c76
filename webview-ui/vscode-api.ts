import type { WebviewToHost } from '../src/protocol/messages';

/** The subset of the webview API Headroom uses. `acquireVsCodeApi` may be called only once. */
interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api: VsCodeApi = acquireVsCodeApi();

/** Sends a typed message to the extension host. */
export function send(message: WebviewToHost): void {
  api.postMessage(message);
}

export function getState<T>(): T | undefined {
  return api.getState() as T | undefined;
}

export function setState<T>(state: T): void {
  api.setState(state);
}
