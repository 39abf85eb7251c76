import { MessageOf, parseWebviewMessage, WebviewToHost } from './messages';

/** One handler per webview message type: a `Record<type, handler>`, never a switch. */
export type WebviewHandlers = {
  [T in WebviewToHost['type']]: (message: MessageOf<WebviewToHost, T>) => void | Promise<void>;
};

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
  return async (raw) => {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      onInvalid(parsed.error, raw);
      return;
    }
    const message = parsed.message;
    const handler = handlers[message.type] as (m: WebviewToHost) => void | Promise<void>;
    try {
      await handler(message);
    } catch (err) {
      onHandlerError(err, message.type);
    }
  };
}
