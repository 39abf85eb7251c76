/**
 * A guard between the network and the SDKs' server-sent-events parsers. The OpenAI SDK's parser copies
 * and rescans everything it has buffered on every chunk (`iterSSEChunks`, `LineDecoder`), so one event
 * of 16 MB arriving in 64 KB chunks cost 91 s of work and blocked the host for seconds; the Anthropic
 * SDK's is linear but has no size cap. This guard hands the SDK the stream re-cut at event boundaries
 * (the blank line that ends an event, https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
 * scanning every byte once, so the SDK's buffer never holds more than the events of one chunk; and it
 * ends the stream with an error when one event grows past `MAX_SSE_EVENT_BYTES`. Pure stream code.
 */

/**
 * Largest event accepted. A Responses API `response.completed` event repeats the whole answer (a long
 * answer with reasoning is well under 2 MB); 8 MB leaves room and still bounds the memory and time.
 */
export const MAX_SSE_EVENT_BYTES = 8 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/** The error a stream ends with when an event is too large. Not a transport failure: retrying would repeat it. */
export class SseEventTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The provider sent one stream event larger than ${Math.round(maxBytes / 1024 / 1024)} MB; the request was stopped.`);
    this.name = 'SseEventTooLargeError';
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Re-cuts a byte stream of server-sent events so that every chunk it emits ends at an event boundary
 * (an empty line, whatever the line endings: LF, CRLF or CR), and errors when the bytes of one
 * unfinished event pass `maxEventBytes`. Linear: each byte is looked at once.
 */
export function sseEventChunks(maxEventBytes = MAX_SSE_EVENT_BYTES): TransformStream<Uint8Array, Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let lineLength = 0; // bytes of the current line so far
  let afterCR = false; // the previous byte was a CR that ended a line
  let blankCR = false; // ...and that line was empty: the boundary falls after an LF that may follow
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let from = 0;
      const cut = (end: number) => {
        pending.push(chunk.subarray(from, end));
        pendingBytes += end - from;
        controller.enqueue(concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
        from = end;
      };
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (blankCR) {
          blankCR = false;
          if (b === LF) {
            afterCR = false;
            cut(i + 1);
            continue;
          }
          cut(i);
        }
        if (b === LF) {
          if (afterCR)
            afterCR = false; // the LF of a CRLF: the line already ended
          else if (lineLength === 0) cut(i + 1);
          lineLength = 0;
        } else if (b === CR) {
          if (lineLength === 0) blankCR = true;
          afterCR = true;
          lineLength = 0;
        } else {
          afterCR = false;
          lineLength++;
        }
      }
      if (from < chunk.length) {
        pending.push(chunk.subarray(from));
        pendingBytes += chunk.length - from;
      }
      if (pendingBytes > maxEventBytes) controller.error(new SseEventTooLargeError(maxEventBytes));
    },
    flush(controller) {
      if (pendingBytes) controller.enqueue(concat(pending, pendingBytes));
    },
  });
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** `inner` with every `text/event-stream` body passed through `sseEventChunks`; other responses as they are. */
export function guardedSseFetch(inner: Fetch = (input, init) => fetch(input, init), maxEventBytes = MAX_SSE_EVENT_BYTES): Fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.body || !res.headers.get('content-type')?.includes('text/event-stream')) return res;
    return new Response(res.body.pipeThrough(sseEventChunks(maxEventBytes)), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
