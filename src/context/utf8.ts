/** UTF-8 helpers shared by the counters. Pure, never throw. */

/** UTF-8 byte length of `text[start, end)` without allocating. Lone surrogates count as 3 bytes (U+FFFD). */
export function utf8Length(text: string, start = 0, end = text.length): number {
  let bytes = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The byte-based floor and fallback estimate: `ceil(utf8Bytes / 4)`. */
export function byteEstimate(bytes: number): number {
  return Math.ceil(Math.max(0, bytes) / 4);
}

/** True when `text[i]` is the low half of a surrogate pair, i.e. cutting at `i` would split a character. */
export function splitsSurrogate(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const prev = text.charCodeAt(i - 1);
  const cur = text.charCodeAt(i);
  return prev >= 0xd800 && prev <= 0xdbff && cur >= 0xdc00 && cur <= 0xdfff;
}
