/**
 * The user message a prompt becomes: the pasted or dropped images first (checked again by their bytes:
 * the webview's message is input like any other), then the text. Refuses images for a model that
 * takes none, in words that say what to do. Pure; throws `HeadroomError('invalid_request')`.
 */
import { base64Size, checkBase64Image, MAX_IMAGES_PER_MESSAGE, totalProblem } from '../common/images';
import { HeadroomError } from '../common/errors';
import { acceptsImages } from '../context/models';
import type { ImagePart, ProviderId, UserMessage } from '../providers/types';

/** An image as the panel sends it: base64 of the bytes and the type it claims (the bytes decide). */
export interface PromptImage {
  mediaType: string;
  data: string;
}

export function promptMessage(
  text: string,
  images: readonly PromptImage[] | undefined,
  target: { provider: ProviderId; model: string },
  timestamp = Date.now(),
): UserMessage {
  const parts: ImagePart[] = [];
  if (images?.length) {
    if (acceptsImages(target.model, target.provider) === false)
      throw new HeadroomError(
        'invalid_request',
        `${target.model || 'This model'} takes no images. Remove the image, or pick a model that accepts images.`,
      );
    if (images.length > MAX_IMAGES_PER_MESSAGE)
      throw new HeadroomError('invalid_request', `A message can carry at most ${MAX_IMAGES_PER_MESSAGE} images.`);
    const total = totalProblem(images.map((image) => base64Size(image.data)));
    if (total) throw new HeadroomError('invalid_request', `The images were not sent: ${total}.`);
    images.forEach((image, i) => {
      const check = checkBase64Image(image.data);
      if (!check.ok) throw new HeadroomError('invalid_request', `Image ${i + 1} was not sent: ${check.reason}.`);
      const { mediaType, width, height } = check.facts;
      parts.push({ type: 'image', mediaType, data: image.data, ...(width && height ? { width, height } : {}) });
    });
  }
  return { role: 'user', content: [...parts, { type: 'text', text }], timestamp };
}
