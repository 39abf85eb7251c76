/**
 * An image too large to send as it is (over the byte limit, or over 8000 px a side) is scaled down in
 * the panel to a 1568 px long side, the size Anthropic scales to anyway, and re-encoded: PNG, or JPEG
 * when the PNG is still too large. The result is checked by its bytes like any other image.
 */
import { IMAGE_LONG_EDGE, type ImageFacts } from '../src/common/images';

/** Largest file the panel reads at all (a bigger one is refused unread). */
export const MAX_READ_BYTES = 40 * 1024 * 1024;

async function encode(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Uint8Array | undefined> {
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, quality));
  return blob ? new Uint8Array(await blob.arrayBuffer()) : undefined;
}

/** The image scaled to fit `IMAGE_LONG_EDGE`, within `maxBytes`; undefined when it cannot be decoded or made small enough. */
export async function fitImage(bytes: Uint8Array, facts: ImageFacts, maxBytes: number): Promise<Uint8Array | undefined> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes.slice()], { type: facts.mediaType }));
  } catch {
    return undefined;
  }
  const scale = Math.min(1, IMAGE_LONG_EDGE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  for (const [type, quality] of [['image/png'], ['image/jpeg', 0.9], ['image/jpeg', 0.7]] as Array<[string, number?]>) {
    const out = await encode(canvas, type, quality);
    if (out && out.length <= maxBytes) return out;
  }
  return undefined;
}
