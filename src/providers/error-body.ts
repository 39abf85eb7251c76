/**
 * Error bodies of OpenAI-compatible servers, brought to OpenAI's `{ error: { message, type, code } }`
 * shape. The OpenAI SDK reads only `body.error`: vLLM's and SGLang's top-level body (`{object:
 * 'error', message, type, code: 400}`) reached Headroom as "400 status code (no body)", so an overflow
 * was never seen as one; TGI and LM Studio send `{error: "text"}`; FastAPI servers `{detail: "text"}`,
 * `{detail: {msg}}` or a validation list `{detail: [{msg}]}`
 * (https://fastapi.tiangolo.com/tutorial/handling-errors/); Google's APIs, Gemini's OpenAI-compatible
 * endpoint among them, an array `[{error: {code, message, status}}]`
 * (https://ai.google.dev/gemini-api/docs/troubleshooting). Pure; never throws.
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/**
 * `body` in OpenAI's error shape: bodies already in it are returned as they are; a top-level
 * `message`, a string `error` or a string `detail` becomes `{ error: { message, type?, code? } }`.
 * Anything else (no body, an array, a number) is returned unchanged.
 */
export function normalizeErrorBody(body: unknown): unknown {
  if (typeof body === 'string') return text(body) ? { error: { message: body } } : body;
  // An array of errors (Google): the first one that says something.
  if (Array.isArray(body)) {
    for (const item of body.slice(0, 8)) {
      const one = normalizeErrorBody(item);
      if (one !== item || (isObj(one) && isObj(one.error))) return one;
    }
    return body;
  }
  if (!isObj(body)) return body;
  if (isObj(body.error)) return body;
  const message = text(body.error) ?? text(body.message) ?? detailText(body.detail);
  if (message === undefined) return body;
  const inner: Obj = { message };
  const type = text(body.error_type) ?? text(body.type);
  if (type) inner.type = type;
  if (text(body.code)) inner.code = body.code; // numeric codes (vLLM: 400) are the status again, not a code
  if (text(body.param)) inner.param = body.param;
  return { error: inner };
}

/** FastAPI's `detail`: a string, an object with `msg` or `message`, or a list of such objects. */
function detailText(detail: unknown): string | undefined {
  if (typeof detail === 'string') return text(detail);
  const one = (d: unknown) => (isObj(d) ? (text(d.msg) ?? text(d.message)) : text(d));
  if (Array.isArray(detail)) {
    const all = detail
      .slice(0, 8)
      .map(one)
      .filter((m): m is string => m !== undefined);
    return all.length ? all.join('; ') : undefined;
  }
  return one(detail);
}
