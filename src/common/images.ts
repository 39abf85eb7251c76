/**
 * Images a person pastes or drops into the composer: which ones are accepted, how their bytes are
 * checked, and what one costs in the context. Pure and browser-safe (the panel checks an image before
 * it shows the chip; the host checks it again, because a webview message is input like any other).
 *
 * The type is read from the bytes (magic numbers), never from a file name or a declared MIME type.
 */
import { imageStructureProblem } from './image-structure';

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * Most image bytes one message may carry, all its images together (so also the largest image). Below
 * Anthropic's 5 MB per image because a message is stored whole and the store keeps at most 4 MB per
 * message (`store/store.ts` `maxMessageBytes`): 2.5 MB is 3.4 MB of base64, leaving room for the text.
 */
export const MAX_IMAGE_BYTES = 2.5 * 1024 * 1024;
/** Largest side accepted, in pixels (Anthropic refuses larger images). */
export const MAX_IMAGE_SIDE = 8000;
/** Images one message may carry. */
export const MAX_IMAGES_PER_MESSAGE = 4;
/** Base64 length of the largest image (4 characters per 3 bytes). */
export const MAX_IMAGE_BASE64 = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;

/** What the bytes say: the type and, when the header holds them, the size in pixels. */
export interface ImageFacts {
  mediaType: ImageMediaType;
  width?: number;
  height?: number;
}

export type ImageCheck = { ok: true; facts: ImageFacts } | { ok: false; reason: string };

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) => sig.every((v, i) => b[at + i] === v);
const ascii = (b: Uint8Array, at: number, s: string) => [...s].every((c, i) => b[at + i] === c.charCodeAt(0));
const be16 = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const le16 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const be32 = (b: Uint8Array, at: number) => ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
const le24 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);

/** The size a JPEG's first start-of-frame marker gives; undefined when none is found. */
function jpegSize(b: Uint8Array): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry height then width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: be16(b, at + 5), width: be16(b, at + 7) };
    if (marker === 0xd9 || marker === 0xda) return undefined;
    at += 2 + be16(b, at + 2);
  }
  return undefined;
}

function webpSize(b: Uint8Array): { width: number; height: number } | undefined {
  if (ascii(b, 12, 'VP8 ') && b.length >= 30) return { width: le16(b, 26) & 0x3fff, height: le16(b, 28) & 0x3fff };
  if (ascii(b, 12, 'VP8L') && b.length >= 25) {
    const [b0, b1, b2, b3] = [b[21], b[22], b[23], b[24]];
    return { width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0xf) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)) };
  }
  if (ascii(b, 12, 'VP8X') && b.length >= 30) return { width: 1 + le24(b, 24), height: 1 + le24(b, 27) };
  return undefined;
}

/** The image type the bytes begin with, and its size when the header says it; undefined for anything else. */
export function sniffImage(b: Uint8Array): ImageFacts | undefined {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    const size = b.length >= 24 && ascii(b, 12, 'IHDR') ? { width: be32(b, 16), height: be32(b, 20) } : {};
    return { mediaType: 'image/png', ...size };
  }
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { mediaType: 'image/jpeg', ...jpegSize(b) };
  if ((ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) && b.length >= 10)
    return { mediaType: 'image/gif', width: le16(b, 6), height: le16(b, 8) };
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return { mediaType: 'image/webp', ...webpSize(b) };
  return undefined;
}

/** How many bytes this base64 text decodes to. */
export const base64Size = (data: string) => Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);

/** Why images of these sizes cannot go in one message together; undefined when they can. */
export function totalProblem(sizes: readonly number[]): string | undefined {
  const total = sizes.reduce((a, b) => a + b, 0);
  return total > MAX_IMAGE_BYTES
    ? `together they are ${formatMb(total)}; the images of one message can be at most ${formatMb(MAX_IMAGE_BYTES)}`
    : undefined;
}

/**
 * Whether these bytes are an image Headroom sends: a known type by its bytes, within the size limits,
 * whole from its header to its end marker (`imageStructureProblem`).
 */
export function checkImage(bytes: Uint8Array): ImageCheck {
  if (bytes.length > MAX_IMAGE_BYTES)
    return { ok: false, reason: `it is ${formatMb(bytes.length)}; images can be at most ${formatMb(MAX_IMAGE_BYTES)}` };
  const facts = sniffImage(bytes);
  if (!facts) return { ok: false, reason: 'it is not a PNG, JPEG, GIF or WebP image' };
  if ((facts.width ?? 1) < 1 || (facts.height ?? 1) < 1) return { ok: false, reason: 'its header gives it no size' };
  if ((facts.width ?? 0) > MAX_IMAGE_SIDE || (facts.height ?? 0) > MAX_IMAGE_SIDE)
    return { ok: false, reason: `it is ${facts.width}×${facts.height} px; images can be at most ${MAX_IMAGE_SIDE} px a side` };
  const broken = imageStructureProblem(bytes, facts.mediaType);
  if (broken) return { ok: false, reason: broken };
  return { ok: true, facts };
}

/** Decodes base64 (no data: prefix); undefined when it is not base64 or decodes to more than `limit` bytes. */
export function base64Bytes(data: string, limit = MAX_IMAGE_BYTES): Uint8Array | undefined {
  if (data.length % 4 !== 0 || data.length > Math.ceil(limit / 3) * 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return undefined;
  const bin = atob(data);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Checks a base64 image as a webview sends it: the same rule as `checkImage`, after decoding. */
export function checkBase64Image(data: string): ImageCheck {
  if (data.length > MAX_IMAGE_BASE64)
    return { ok: false, reason: `it is over ${formatMb(MAX_IMAGE_BYTES)}; images can be at most ${formatMb(MAX_IMAGE_BYTES)}` };
  const bytes = base64Bytes(data);
  return bytes ? checkImage(bytes) : { ok: false, reason: 'its data is not base64' };
}

/** Tokens charged for an image whose size is unknown, and the most any image is charged. */
export const IMAGE_TOKENS_MAX = 1600;
/** The least an image is charged (OpenAI's base cost of one image). */
export const IMAGE_TOKENS_MIN = 85;
/** Longest side a provider keeps before it scales an image down (Anthropic); the panel scales a too-large image to it. */
export const IMAGE_LONG_EDGE = 1568;

/**
 * What one image costs in the context, the meter's rule: Anthropic's published estimate, width × height
 * / 750 tokens, after the image is scaled to fit a 1568 px long side, capped at 1600 (Anthropic scales
 * anything larger down to about 1.15 megapixels) and at least 85 (OpenAI's base cost). An image of
 * unknown size counts 1600. OpenAI's tile rule costs less for every size (a 1024×1024 image: 765 against
 * 1398), so the figure errs high, as every estimate of the meter does.
 */
export function imageTokens(width?: number, height?: number): number {
  if (!width || !height || !Number.isFinite(width) || !Number.isFinite(height) || width < 1 || height < 1) return IMAGE_TOKENS_MAX;
  const scale = Math.min(1, IMAGE_LONG_EDGE / Math.max(width, height));
  const tokens = Math.ceil((width * scale * (height * scale)) / 750);
  return Math.min(IMAGE_TOKENS_MAX, Math.max(IMAGE_TOKENS_MIN, tokens));
}

function formatMb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(2).replace(/\.?0+$/, '')} MB`;
}
