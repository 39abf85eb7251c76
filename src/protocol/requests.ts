/**
 * The webview's questions to the host, each with its answer: one table of `"area/verb": [input, output]`
 * schemas. The asking side sends `request` with a fresh id and awaits the `reply` that carries the same
 * id; the host validates the input before its handler runs and the output before it is sent, the
 * webview validates the output again before the promise resolves. Browser-safe: zod and pure data.
 */
import { z } from 'zod';
import { MentionOption } from './mentions';
import { ChatItem, HistoryView } from './view-models';

const refId = z.string().min(1).max(200);

/** Every request, by method: its input and its output. */
export const REQUESTS = {
  /** The sessions of this workspace and the current session's snapshots (the history view). */
  'session/list': [z.object({}), z.object({ history: HistoryView })],
  /** The panel scrolled to the top of what it shows: the page of items before `beforeId` (the first shown); `hasOlder`: more pages before it. */
  'transcript/older': [z.object({ beforeId: refId }), z.object({ items: z.array(ChatItem).max(10_000), hasOlder: z.boolean() })],
  /** The first-run view's Test connection: `ok` with the server or model that answered, or what failed and what to do. */
  'config/test': [z.object({}), z.object({ ok: z.boolean(), message: z.string().max(2_000), url: z.string().max(2_000).optional() })],
  /** The `@` picker's rows for what was typed after the `@`. */
  'mention/search': [z.object({ query: z.string().max(500) }), z.object({ options: z.array(MentionOption).max(200) })],
} as const;

export type RequestMethod = keyof typeof REQUESTS;
export type RequestInput<M extends RequestMethod> = z.infer<(typeof REQUESTS)[M][0]>;
export type RequestOutput<M extends RequestMethod> = z.infer<(typeof REQUESTS)[M][1]>;

export const REQUEST_METHODS = Object.keys(REQUESTS) as [RequestMethod, ...RequestMethod[]];

const requestId = z.number().int().nonnegative();

/** webview → host: a question; `params` is checked against the method's input when it is answered. */
export const RequestMessage = z.object({ type: z.literal('request'), id: requestId, method: z.enum(REQUEST_METHODS), params: z.unknown() });
export type RequestMessage = z.infer<typeof RequestMessage>;

/** host → webview: the answer to request `id`: its `result` (checked against the method's output), or why there is none. */
export const ReplyMessage = z.object({
  type: z.literal('reply'),
  id: requestId,
  result: z.unknown().optional(),
  error: z.string().max(10_000).optional(),
});
export type ReplyMessage = z.infer<typeof ReplyMessage>;

/** The host's answer to each method. */
export type RequestHandlers = { [M in RequestMethod]: (input: RequestInput<M>) => Promise<RequestOutput<M>> };

/**
 * Answers one request: validates its input, runs the method's handler, validates the output. Never
 * rejects: a bad input, a failing handler or a bad output becomes a reply with `error`, and `onError`
 * hears about the failure (the host shows it).
 */
export async function answerRequest(
  handlers: RequestHandlers,
  message: RequestMessage,
  onError: (error: unknown, method: RequestMethod) => void,
): Promise<ReplyMessage> {
  const [input, output] = REQUESTS[message.method];
  try {
    const params = input.safeParse(message.params);
    if (!params.success) throw new Error(`Invalid ${message.method} request: ${issues(params.error)}`);
    const handler = handlers[message.method] as (input: unknown) => Promise<unknown>;
    const result = output.safeParse(await handler(params.data));
    if (!result.success) throw new Error(`Invalid ${message.method} reply: ${issues(result.error)}`);
    return { type: 'reply', id: message.id, result: result.data };
  } catch (err) {
    onError(err, message.method);
    return { type: 'reply', id: message.id, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The asking side: `request` sends a question and resolves with its validated answer (rejects with the
 * host's error, or when the answer does not match the method's output); `settle` takes each reply.
 */
export class RequestClient {
  private nextId = 0;
  private readonly pending = new Map<number, { method: RequestMethod; resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly send: (message: RequestMessage) => void) {}

  request<M extends RequestMethod>(method: M, params: RequestInput<M>): Promise<RequestOutput<M>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject });
      this.send({ type: 'request', id, method, params });
    });
  }

  /** Resolves or rejects the request `reply` answers; a reply to nothing asked is ignored. */
  settle(reply: ReplyMessage): void {
    const asked = this.pending.get(reply.id);
    if (!asked) return;
    this.pending.delete(reply.id);
    if (reply.error !== undefined) return asked.reject(new Error(reply.error));
    const result = REQUESTS[asked.method][1].safeParse(reply.result);
    if (result.success) asked.resolve(result.data);
    else asked.reject(new Error(`Invalid ${asked.method} reply: ${issues(result.error)}`));
  }
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '<root>'}: ${i.message}`)
    .join('; ');
}
