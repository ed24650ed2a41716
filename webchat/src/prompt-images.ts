// The images a page sends with a prompt, checked again before they reach the
// agent (the page checked them: webchat/page/image-check.ts, the same bounds and
// kinds): only to an agent that takes images, each one's kind read from its
// decoded bytes, within the bounds. A prompt whose images fail is not sent; the
// page is told why (a hostile page's problem, never the server's).

import type { ContentBlock } from "@agentclientprotocol/sdk";

type ImageBlock = Extract<ContentBlock, { type: "image" }>;
import { IMAGE_LIMITS, imageKind } from "../page/image-check.js";

/** The images as ACP content, or why they cannot go. `undefined` or `[]` is no images. */
export function promptImages(images: unknown, agentTakesImages: boolean): { blocks: ImageBlock[] } | { refused: string } {
  if (images === undefined || (Array.isArray(images) && images.length === 0)) return { blocks: [] };
  if (!agentTakesImages) return { refused: "this agent does not take images (it does not offer promptCapabilities.image)" };
  if (!Array.isArray(images) || images.length > IMAGE_LIMITS.count) return { refused: `a message takes at most ${IMAGE_LIMITS.count} images` };
  const blocks: ImageBlock[] = [];
  let total = 0;
  for (const [index, image] of images.entries()) {
    const { mimeType, data } = (image ?? {}) as { mimeType?: unknown; data?: unknown };
    if (typeof data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return { refused: `image ${index + 1} is not base64` };
    const bytes = Buffer.from(data, "base64");
    total += bytes.length;
    if (bytes.length > IMAGE_LIMITS.each || total > IMAGE_LIMITS.total) return { refused: `image ${index + 1} is over the chat's bounds for images` };
    const kind = imageKind(bytes);
    if (kind === null || kind !== mimeType) return { refused: `image ${index + 1} is not a PNG, JPEG, GIF or WebP image of the type it claims` };
    blocks.push({ type: "image", mimeType: kind, data });
  }
  return { blocks };
}
