/**
 * Whether an image's bytes hold a whole image, not only a header: a pasted file cut short, or a
 * header written in front of nothing, passes a type sniff, is refused by the provider (Anthropic:
 * "Could not process image") and, once in the context, fails every later request. Each format is
 * walked from its first byte to its end marker, every length checked against the bytes there:
 * - PNG: IHDR first with valid fields, every chunk's CRC-32, at least one IDAT, IEND
 *   (https://www.w3.org/TR/png-3/#5Chunk-layout);
 * - GIF: screen descriptor, colour tables, every extension and image's sub-blocks, the trailer, at
 *   least one image (https://www.w3.org/Graphics/GIF/spec-gif89a.txt);
 * - JPEG: every marker segment, a frame header, a scan whose entropy-coded data reaches the EOI marker
 *   (ITU T.81, annex B);
 * - WebP: the RIFF size against the bytes, every chunk in bounds, a VP8/VP8L bitstream with its
 *   signature or an animation frame (https://developers.google.com/speed/webp/docs/riff_container).
 * Bytes after the end marker are ignored, as decoders do. Linear in the size; pure and browser-safe.
 */
const be16 = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const be32 = (b: Uint8Array, at: number) => ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
const le16 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const le32 = (b: Uint8Array, at: number) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
const tag = (b: Uint8Array, at: number) => String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);

const CUT = 'its data is cut short';

/** Why these bytes of `mediaType` are not a whole image; undefined when they are. */
export function imageStructureProblem(b: Uint8Array, mediaType: string): string | undefined {
  switch (mediaType) {
    case 'image/png':
      return pngProblem(b);
    case 'image/gif':
      return gifProblem(b);
    case 'image/jpeg':
      return jpegProblem(b);
    case 'image/webp':
      return webpProblem(b);
    default:
      return 'it is not a PNG, JPEG, GIF or WebP image';
  }
}

let crcTable: Uint32Array | undefined;
function crc32(b: Uint8Array, from: number, to: number): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = from; i < to; i++) c = crcTable[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Bit depths each PNG colour type allows (PNG 11.2.2). */
const PNG_DEPTHS: Record<number, readonly number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

function pngProblem(b: Uint8Array): string | undefined {
  let at = 8;
  let idat = 0;
  let palette = false;
  let colourType = -1;
  while (at + 12 <= b.length) {
    const length = be32(b, at);
    const type = tag(b, at + 4);
    if (length > 0x7fffffff || at + 12 + length > b.length) return CUT;
    if (crc32(b, at + 4, at + 8 + length) !== be32(b, at + 8 + length)) return `its ${type.replace(/[^A-Za-z]/g, '?')} chunk is damaged`;
    if (at === 8) {
      if (type !== 'IHDR' || length !== 13) return 'it does not start with a PNG header';
      const [depth, colour, compression, filter, interlace] = b.subarray(at + 16, at + 21);
      if (!PNG_DEPTHS[colour]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) return 'its PNG header is not valid';
      colourType = colour;
    } else if (type === 'PLTE') palette = true;
    else if (type === 'IDAT') idat++;
    else if (type === 'IEND') {
      if (idat === 0) return 'it holds no pixel data';
      if (colourType === 3 && !palette) return 'it has no palette';
      return undefined;
    }
    at += 12 + length;
  }
  return at === 8 ? 'it does not start with a PNG header' : CUT;
}

function gifProblem(b: Uint8Array): string | undefined {
  const tableSize = (flags: number) => (flags & 0x80 ? 3 * (1 << ((flags & 7) + 1)) : 0);
  let at = 13 + tableSize(b[10]);
  let images = 0;
  const subBlocks = (): boolean => {
    for (;;) {
      if (at >= b.length) return false;
      const size = b[at++];
      if (size === 0) return true;
      at += size;
    }
  };
  while (at < b.length) {
    const block = b[at];
    if (block === 0x3b) return images > 0 ? undefined : 'it holds no image';
    if (block === 0x21) {
      at += 2;
      if (!subBlocks()) return CUT;
    } else if (block === 0x2c) {
      if (at + 10 > b.length) return CUT;
      if (le16(b, at + 5) === 0 || le16(b, at + 7) === 0) return 'one of its frames has no size';
      at += 10 + tableSize(b[at + 9]);
      if (at >= b.length) return CUT;
      const codeSize = b[at++];
      if (codeSize < 2 || codeSize > 8) return 'one of its frames is not valid';
      if (!subBlocks()) return CUT;
      images++;
    } else return 'it holds a block GIF does not have';
  }
  return CUT;
}

function jpegProblem(b: Uint8Array): string | undefined {
  let at = 2;
  let frame = false;
  let scan = false;
  while (at + 1 < b.length) {
    if (b[at] !== 0xff) return 'its markers are damaged';
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd9) return frame && scan ? undefined : 'it holds no image';
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    if (marker === 0xd8 || marker === 0x00) return 'its markers are damaged';
    if (at + 4 > b.length) return CUT;
    const length = be16(b, at + 2);
    if (length < 2 || at + 2 + length > b.length) return CUT;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (length < 8 || be16(b, at + 5) === 0 || be16(b, at + 7) === 0) return 'its frame header gives it no size';
      frame = true;
    }
    at += 2 + length;
    if (marker === 0xda) {
      if (!frame) return 'its markers are damaged';
      scan = true;
      // Entropy-coded data: 0xFF is followed by 0x00 (a stuffed byte), a restart marker or fill; any
      // other marker ends the scan.
      for (;;) {
        if (at + 1 >= b.length) return CUT;
        if (b[at] !== 0xff) at++;
        else if (b[at + 1] === 0x00 || (b[at + 1] >= 0xd0 && b[at + 1] <= 0xd7)) at += 2;
        else if (b[at + 1] === 0xff) at++;
        else break;
      }
    }
  }
  return CUT;
}

function webpProblem(b: Uint8Array): string | undefined {
  if (b.length < 12) return CUT;
  const end = 8 + le32(b, 4);
  if (end > b.length) return CUT;
  let at = 12;
  let bitstream = false;
  while (at + 8 <= end) {
    const type = tag(b, at);
    const size = le32(b, at + 4);
    if (at + 8 + size > end) return CUT;
    if (type === 'VP8 ') {
      if (size < 10 || b[at + 11] !== 0x9d || b[at + 12] !== 0x01 || b[at + 13] !== 0x2a) return 'its VP8 data is not valid';
      bitstream = true;
    } else if (type === 'VP8L') {
      if (size < 5 || b[at + 8] !== 0x2f) return 'its VP8L data is not valid';
      bitstream = true;
    } else if (type === 'ANMF') bitstream = true;
    at += 8 + size + (size & 1);
  }
  if (at < end && at + 8 > end) return CUT;
  return bitstream ? undefined : 'it holds no image';
}
