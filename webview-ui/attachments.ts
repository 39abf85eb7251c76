/**
 * Images pasted or dropped into the composer: each is checked by its bytes (type by magic number, at
 * most 2.5 MB (all images of a message together) and 8000 px a side: `src/common/images.ts`, the host checks again; a
 * larger one is scaled down first, `image-fit.ts`) and shown as a chip
 * with its thumbnail, its size, what it costs in the context and a Remove button. The chips travel
 * with the next prompt. For a model that takes no images the composer says so instead of dropping them.
 */
import {
  checkImage,
  imageTokens,
  IMAGE_MEDIA_TYPES,
  MAX_IMAGE_BYTES,
  MAX_IMAGE_SIDE,
  MAX_IMAGES_PER_MESSAGE,
  sniffImage,
  totalProblem,
  type ImageFacts,
} from '../src/common/images';
import { formatBytes, formatTokens } from '../src/protocol/format';
import type { ImageAttachment } from '../src/protocol/messages';
import { h } from './dom';
import { fitImage, MAX_READ_BYTES } from './image-fit';

interface Attached extends ImageAttachment {
  facts: ImageFacts;
  bytes: number;
}

const TYPE_NAMES: Record<string, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' };

function base64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export class Attachments {
  readonly element = h('div', { class: 'hr-attachments', 'data-testid': 'attachments', hidden: true });
  private readonly list = h('ul', { class: 'hr-attachment-list', 'aria-label': 'Attached images' });
  private readonly note = h('p', { class: 'hr-attachment-note', role: 'status', 'data-testid': 'attachment-note' });
  private items: Attached[] = [];
  /** The model takes images: true, false, or undefined when unknown (a server's model: let them through). */
  private accepts: boolean | undefined;
  private model = '';

  /** Shows the chips above the composer's prompt box and listens there for pasted and dropped images. */
  constructor(
    composer: HTMLElement,
    private readonly announce: (text: string) => void,
  ) {
    this.element.append(this.list, this.note);
    composer.insertBefore(this.element, composer.querySelector('.hr-input'));
    this.listen(composer);
  }

  private listen(target: HTMLElement): void {
    target.addEventListener('paste', (e) => {
      const files = [...(e.clipboardData?.files ?? [])];
      // Text that comes with files (a copied file's name, say) stays a text paste unless one claims to be an image.
      if (!files.length || (e.clipboardData?.types.includes('text/plain') && !files.some((f) => f.type.startsWith('image/')))) return;
      e.preventDefault();
      void this.add(files);
    });
    // Handled dragenter keeps VS Code's webview from starting its own drag handling (drop needs Shift in VS Code).
    target.addEventListener('dragenter', (e) => e.dataTransfer?.types.includes('Files') && e.preventDefault());
    target.addEventListener('dragover', (e) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
      target.classList.add('hr-drop-target');
    });
    target.addEventListener('dragleave', () => target.classList.remove('hr-drop-target'));
    target.addEventListener('drop', (e) => {
      target.classList.remove('hr-drop-target');
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files.length) return;
      e.preventDefault();
      void this.add(files);
    });
  }

  /** The session's model and whether it takes images (the snapshot's `modelInfo.images`). */
  setModel(model: string, accepts: boolean | undefined): void {
    this.model = model;
    this.accepts = accepts;
    this.paint();
  }

  get count(): number {
    return this.items.length;
  }

  /** Why the images cannot go with the prompt now (the model takes none); undefined when they can. */
  refusal(): string | undefined {
    return this.items.length && this.accepts === false ? this.noImagesText() : undefined;
  }

  /** The images for the prompt being sent (`{}` when none); the chips go. */
  take(): { images?: ImageAttachment[] } {
    if (!this.items.length) return {};
    const images = this.items.map(({ mediaType, data }) => ({ mediaType, data }));
    this.items = [];
    this.setNote('');
    return { images };
  }

  private noImagesText(): string {
    return `${this.model || 'This model'} takes no images. Remove them, or pick a model that accepts images with the model button above.`;
  }

  private async add(files: File[]): Promise<void> {
    const problems: string[] = [];
    if (this.accepts === false) {
      this.setNote(`Not attached: ${this.noImagesText()}`);
      return;
    }
    for (const file of files) {
      const name = file.name || 'The pasted file';
      if (this.items.length >= MAX_IMAGES_PER_MESSAGE) {
        problems.push(`${name}: a message can carry at most ${MAX_IMAGES_PER_MESSAGE} images`);
        continue;
      }
      // A file far too large is refused unread; a large image is scaled down (what the model sees anyway).
      if (file.size > MAX_READ_BYTES) {
        problems.push(`${name}: it is ${formatBytes(file.size)}; images can be at most ${formatBytes(MAX_IMAGE_BYTES)}`);
        continue;
      }
      let bytes: Uint8Array = new Uint8Array(await file.arrayBuffer());
      const sniffed = sniffImage(bytes);
      if (sniffed && (bytes.length > MAX_IMAGE_BYTES || Math.max(sniffed.width ?? 0, sniffed.height ?? 0) > MAX_IMAGE_SIDE))
        bytes = (await fitImage(bytes, sniffed, MAX_IMAGE_BYTES)) ?? bytes;
      const check = checkImage(bytes);
      if (!check.ok) {
        problems.push(`${name}: ${check.reason}`);
        continue;
      }
      const together = totalProblem([...this.items.map((i) => i.bytes), bytes.length]);
      if (together) {
        problems.push(`${name}: ${together}`);
        continue;
      }
      if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(check.facts.mediaType)) continue;
      this.items.push({ mediaType: check.facts.mediaType, data: base64(bytes), facts: check.facts, bytes: bytes.length });
    }
    this.setNote(problems.length ? `Not attached: ${problems.join('; ')}.` : '');
    this.paint();
    if (!problems.length) this.announce(`${this.items.length} image${this.items.length === 1 ? '' : 's'} attached`);
  }

  private setNote(text: string): void {
    this.note.textContent = text;
    this.paint();
  }

  private paint(): void {
    const refusal = this.refusal();
    if (refusal) this.note.textContent = refusal;
    this.note.hidden = !this.note.textContent;
    this.element.hidden = !this.items.length && this.note.hidden;
    this.list.hidden = !this.items.length;
    this.list.replaceChildren(...this.items.map((item, i) => this.chip(item, i)));
  }

  private chip(item: Attached, i: number): HTMLElement {
    const { width, height } = item.facts;
    const type = TYPE_NAMES[item.mediaType] ?? item.mediaType;
    const size = width && height ? `${width}×${height}` : '';
    const label = `Image ${i + 1}: ${type}${size ? ` ${size}` : ''}`;
    const remove = h('button', { class: 'hr-attachment-remove', 'aria-label': `Remove image ${i + 1}`, title: 'Remove' }, '×');
    remove.addEventListener('click', () => {
      this.items.splice(i, 1);
      this.paint();
      this.announce(`Image ${i + 1} removed`);
    });
    return h(
      'li',
      { class: 'hr-attachment', 'data-testid': 'attachment' },
      h('img', { class: 'hr-attachment-thumb', src: `data:${item.mediaType};base64,${item.data}`, alt: label }),
      h(
        'span',
        { class: 'hr-attachment-meta' },
        h('span', {}, `${type}${size ? ` · ${size}` : ''}`),
        h('span', { class: 'hr-muted' }, `${formatBytes(item.bytes)} · ~${formatTokens(imageTokens(width, height))} tokens`),
      ),
      remove,
    );
  }
}

/** The images of a user bubble (data: URLs the host checked), each as a thumbnail. */
export function userImages(images: readonly string[] | undefined): HTMLElement | undefined {
  if (!images?.length) return undefined;
  return h(
    'div',
    { class: 'hr-user-images' },
    ...images.map((src, i) => h('img', { class: 'hr-user-image', src, alt: `Attached image ${i + 1}`, loading: 'lazy' })),
  );
}
