/**
 * How each provider says "I cannot read this image": one row per wording, with the server's real text
 * and where it was seen. The agent loop replaces a refused image by a note and sends again
 * (`agent/refused-images.ts`), so one bad image does not fail every later request of the session.
 * Pure data and one test.
 */

export interface ImageRefusal {
  server: string;
  pattern: RegExp;
  /** The server's own text, as it reaches a client. */
  example: string;
  /** Where the wording is documented or reported. */
  source: string;
}

export const IMAGE_REFUSALS: readonly ImageRefusal[] = [
  {
    server: 'Anthropic',
    pattern: /could not process image/i,
    example: 'Could not process image',
    source: 'https://github.com/anthropics/claude-code/issues/1747',
  },
  {
    server: 'Anthropic (bytes of another type than declared)',
    pattern: /image does not match the provided media type|the image appears to be an? image\//i,
    example: 'messages.0.content.0.image.source.base64: Image does not match the provided media type image/png',
    source: 'https://docs.claude.com/en/docs/build-with-claude/vision',
  },
  {
    server: 'OpenAI (Chat Completions and Responses)',
    pattern: /you uploaded an unsupported image|invalid_image_format|image_parse_error/i,
    example:
      "You uploaded an unsupported image. Please make sure your image is valid and has one of the following formats: ['png', 'jpeg', 'gif', 'webp'].",
    source: 'https://github.com/STranslate/STranslate/issues/277',
  },
];

/** True when a provider's error text says it could not read an image of the request. */
export function isImageRefusal(text: string): boolean {
  return IMAGE_REFUSALS.some((r) => r.pattern.test(text));
}
