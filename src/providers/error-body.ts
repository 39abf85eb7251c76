/**
 * Error bodies of OpenAI-compatible servers, brought to OpenAI's `{ error: { message, type, code } }`
 * shape. The OpenAI SDK reads only `body.error`: vLLM's top-level body (`{object: 'error', message,
 * type, code: 400}`) reached Headroom as "400 status code (no body)", so an overflow was never seen as
 * one; TGI and LM Studio send `{error: "text"}`, FastAPI servers `{detail: "text"}`. Pure; never throws.
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
  if (!isObj(body)) return body;
  if (isObj(body.error)) return body;
  const message = text(body.error) ?? text(body.message) ?? text(body.detail);
  if (message === undefined) return body;
  const inner: Obj = { message };
  const type = text(body.error_type) ?? text(body.type);
  if (type) inner.type = type;
  if (text(body.code)) inner.code = body.code; // numeric codes (vLLM: 400) are the status again, not a code
  if (text(body.param)) inner.param = body.param;
  return { error: inner };
}
