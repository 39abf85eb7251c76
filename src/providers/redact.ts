/**
 * Keeps API keys out of every message and log line, in whatever encoding a server echoes them. A key
 * redacted only verbatim reached the error banner base64-encoded (a proxy echoing its `Authorization`
 * header, e.g. `Basic base64(user:key)`); servers also echo it URL-encoded, JSON-escaped or in hex.
 * Pure; never throws.
 */

const REDACTED = '[redacted]';

function base64(bytes: Uint8Array, urlSafe: boolean): string {
  const b = Buffer.from(bytes).toString('base64');
  return urlSafe ? b.replace(/\+/g, '-').replace(/\//g, '_') : b;
}

/**
 * The part of the base64 text of `key` that is the same wherever the key sits in a longer encoded
 * value, for each of the three byte alignments (a key after 0, 1 or 2 bytes of something else): the
 * characters that hold only the key's own bits. Each is long enough to name the key, never a few
 * characters shared with ordinary text.
 */
function base64Cores(key: Uint8Array, urlSafe: boolean): string[] {
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + key.length);
    padded.set(key, shift);
    const text = base64(padded, urlSafe).replace(/=+$/, '');
    // Characters before (shift * 8) bits end mix the prefix in; a last partial group mixes what follows.
    const start = Math.ceil((shift * 8) / 6);
    const end = Math.floor(((shift + key.length) * 8) / 6);
    const core = text.slice(start, end);
    if (core.length >= 8) out.push(core);
  }
  return out;
}

/** Every form of `secret` a server may echo: verbatim, URL-encoded, JSON-escaped, hex, base64 (any alignment, both alphabets). */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    ...base64Cores(bytes, false),
    ...base64Cores(bytes, true),
  ]);
  return [...forms].filter((f) => f.length >= 4).sort((a, b) => b.length - a.length);
}

/**
 * Replaces every given secret in every encoding `secretForms` lists, and anything shaped like an API
 * key, so no key reaches a message or a log.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) {
    if (!s || s.length < 4) continue;
    for (const form of secretForms(s)) out = out.split(form).join(REDACTED);
  }
  // sk-..., sk-ant-..., sk-proj-...: also the masked forms OpenAI echoes ("sk-abc***xyz").
  return out.replace(/\bsk-[A-Za-z0-9_\-*]{6,}/g, 'sk-[redacted]');
}
