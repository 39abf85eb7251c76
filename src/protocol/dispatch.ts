import { HostToWebview, MessageOf, parseHostMessage, parseWebviewMessage, ParseResult, WebviewToHost } from './messages';

/** One handler per message type of a union: a `Record<type, handler>`, never a switch. */
export type HandlerMap<U extends { type: string }, R = void | Promise<void>> = {
  [T in U['type']]: (message: MessageOf<U, T>) => R;
};

export type WebviewHandlers = HandlerMap<WebviewToHost>;
export type HostHandlers = HandlerMap<HostToWebview, void>;

/**
 * Builds the host's single entry point for webview messages. Every raw message is validated first;
 * an invalid one never reaches a handler and is reported through `onInvalid` (which logs it and
 * shows it in the panel). A handler that throws or rejects is reported through `onHandlerError`.
 * The returned function never throws and resolves when the handler has finished.
 */
export function createWebviewDispatcher(
  handlers: WebviewHandlers,
  onInvalid: (error: string, raw: unknown) => void,
  onHandlerError: (error: unknown, type: WebviewToHost['type']) => void,
): (raw: unknown) => Promise<void> {
  return createDispatcher(parseWebviewMessage, handlers, onInvalid, onHandlerError);
}

/** The webview's counterpart: validates host messages and routes them; never throws. */
export function createHostDispatcher(
  handlers: HostHandlers,
  onInvalid: (error: string, raw: unknown) => void,
  onHandlerError: (error: unknown, type: HostToWebview['type']) => void,
): (raw: unknown) => Promise<void> {
  return createDispatcher(parseHostMessage, handlers, onInvalid, onHandlerError);
}

function createDispatcher<U extends { type: string }>(
  parse: (raw: unknown) => ParseResult<U>,
  handlers: HandlerMap<U, unknown>,
  onInvalid: (error: string, raw: unknown) => void,
  onHandlerError: (error: unknown, type: U['type']) => void,
): (raw: unknown) => Promise<void> {
  return async (raw) => {
    const parsed = parse(raw);
    if (!parsed.ok) {
      onInvalid(parsed.error, raw);
      return;
    }
    const message = parsed.message;
    const handler = handlers[message.type as U['type']] as (m: U) => unknown;
    try {
      await handler(message);
    } catch (err) {
      onHandlerError(err, message.type);
    }
  };
}
