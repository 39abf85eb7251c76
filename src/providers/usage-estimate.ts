/** Rough token estimate when a server reports no usage: UTF-8 bytes / 4 (within ~10 % on code and CJK). */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}
