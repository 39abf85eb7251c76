import { RequestClient, type RequestInput, type RequestMethod, type RequestOutput, type WebviewToHost } from '../src/protocol/messages';

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

/** The questions asked of the host; each reply settles its own (`requests.ts`). */
export const requests = new RequestClient((message) => send(message));

/** Asks the host and awaits its answer (validated); rejects with the host's error. */
export function request<M extends RequestMethod>(method: M, params: RequestInput<M>): Promise<RequestOutput<M>> {
  return requests.request(method, params);
}

export function getState<T>(): T | undefined {
  return api.getState() as T | undefined;
}

export function setState<T>(state: T): void {
  api.setState(state);
}
