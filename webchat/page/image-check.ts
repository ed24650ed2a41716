// Images pasted or dropped into the composer: what the chat sends (ACP image
// content, when the agent's promptCapabilities.image says it takes them) and the
// bounds. The kind is read from the bytes, never from a name or a claimed type.
// No DOM and no Node: the page checks before sending, the server checks again.

/** The image kinds sent, and how each file starts. */
export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** One image of a prompt, as the page sends it: base64 of the file's bytes. */
export interface PromptImage {
  mimeType: ImageMimeType;
  data: string;
}

/**
 * Bounds: a prompt message is at most MAX_PAGE_MESSAGE_BYTES (4 MiB) of JSON and base64 costs 4
 * bytes for 3, so the images together stay under 2.5 MiB, each under 2 MiB, at most 8.
 */
export const IMAGE_LIMITS = { each: 2 * 1024 * 1024, total: 2.5 * 1024 * 1024, count: 8 } as const;

/** The image's kind from its first bytes, or null when it is none of the four. */
export function imageKind(bytes: Uint8Array): ImageMimeType | null {
  const starts = (...signature: number[]): boolean => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (starts(0x52, 0x49, 0x46, 0x46) && [0x57, 0x45, 0x42, 0x50].every((byte, index) => bytes[8 + index] === byte)) return "image/webp";
  return null;
}

/** A size as people read it: "50.0 MB", "120 KB". */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** Why a file of `size` bytes starting with `head` cannot be attached next to `attached` bytes of images, or null. */
export function imageRefusal(name: string, size: number, head: Uint8Array, attached: { count: number; bytes: number }): string | null {
  if (attached.count >= IMAGE_LIMITS.count) return `${name} was not attached: a message takes at most ${IMAGE_LIMITS.count} images.`;
  if (size > IMAGE_LIMITS.each) return `${name} is ${sizeText(size)}: the chat sends images up to ${sizeText(IMAGE_LIMITS.each)}. Not attached.`;
  if (imageKind(head) === null) return `${name} is not an image the chat can send (PNG, JPEG, GIF or WebP). Not attached.`;
  if (attached.bytes + size > IMAGE_LIMITS.total)
    return `${name} was not attached: the images of one message may be ${sizeText(IMAGE_LIMITS.total)} together (${sizeText(attached.bytes)} attached).`;
  return null;
}
